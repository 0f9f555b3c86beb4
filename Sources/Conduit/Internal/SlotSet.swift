import Synchronization

/// One slot per upstream, of each upstream's output type: the storage of `Zip` and
/// `CombineLatest`, written out for each arity that Combine has. The reads are specialized for
/// the concrete slot types, so that an output is built in registers: a loop over a parameter
/// pack runs unspecialized generic code for every element, and a stored reader closure returns
/// each output through memory.
///
/// A value comes with the index of the upstream that delivered it, and its type is that
/// upstream's output type: the subscription attaches its upstreams in the order of the slots.
/// The casts that follow from it cost nothing once specialized.
@usableFromInline
protocol SlotSet {
  associatedtype Output

  /// Makes `value`, which upstream `index` delivered, the latest value of its slot, and returns
  /// the latest value of every slot once each has one (combineLatest). The output takes `value`
  /// itself rather than reading it back from its slot.
  mutating func combineLatest<Value>(_ value: Value, at index: Int) -> Output?

  /// Adds `value`, which upstream `index` delivered, to the values queued in its slot (zip), and
  /// takes the oldest queued value of every slot once each has one. When `value` completes an
  /// output, it goes into that output without being queued.
  mutating func enqueue<Value>(_ value: Value, at index: Int) -> Output?

  /// Whether an upstream that has finished has nothing queued: nothing more can pair with it.
  func finishedSlotIsEmpty(_ progress: UpstreamProgress) -> Bool

  /// Forgets every value held.
  mutating func removeAll()
}

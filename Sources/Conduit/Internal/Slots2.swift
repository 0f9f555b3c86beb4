import Synchronization

/// The slots of two upstreams.
@usableFromInline
struct Slots2<A, B>: SlotSet {
  @usableFromInline
  var a = CombiningSlot<A>()
  @usableFromInline
  var b = CombiningSlot<B>()

  @inlinable
  init() {}

  @inlinable @inline(__always)
  mutating func combineLatest<Value>(_ value: Value, at index: Int) -> (A, B)? {
    switch index {
    case 0:
      let value = value as! A
      a.latest = value
      guard let b = b.latest else { return nil }
      return (value, b)
    default:
      let value = value as! B
      b.latest = value
      guard let a = a.latest else { return nil }
      return (a, value)
    }
  }

  @inlinable @inline(__always)
  mutating func enqueue<Value>(_ value: Value, at index: Int) -> (A, B)? {
    // Once no output can be made, at least one slot is drained. If the slot of `value` is, and
    // the others are not, `value` completes an output at once; otherwise it waits its turn.
    switch index {
    case 0:
      if a.isDrained, !b.isDrained { return ((value as! A), b.takeOldest()) }
      a.push(value as! A)
    default:
      if b.isDrained, !a.isDrained { return (a.takeOldest(), (value as! B)) }
      b.push(value as! B)
    }
    return nil
  }

  @inlinable
  func finishedSlotIsEmpty(_ progress: UpstreamProgress) -> Bool {
    (progress.finished[0] && a.isDrained) || (progress.finished[1] && b.isDrained)
  }

  @inlinable
  mutating func removeAll() {
    a.forget()
    b.forget()
  }
}

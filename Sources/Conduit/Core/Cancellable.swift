/// A protocol indicating that an activity or action supports cancellation.
///
/// Calling `cancel()` frees up any allocated resources. It is idempotent.
///
/// ```swift
/// let token: any Cancellable = subject.sink { print($0) }
/// token.cancel()
/// ```
public protocol Cancellable {
  /// Cancel the activity.
  func cancel()
}

extension Cancellable {
  /// Stores this cancellable, type-erased, in the specified collection.
  ///
  /// ```swift
  /// var tokens: [AnyCancellable] = []
  /// subject.sink { print($0) }.store(in: &tokens)
  /// ```
  public func store<C: RangeReplaceableCollection>(in collection: inout C)
  where C.Element == AnyCancellable {
    AnyCancellable(self).store(in: &collection)
  }

  /// Stores this cancellable, type-erased, in the specified set.
  ///
  /// ```swift
  /// var tokens = Set<AnyCancellable>()
  /// subject.sink { print($0) }.store(in: &tokens)
  /// ```
  public func store(in set: inout Set<AnyCancellable>) {
    AnyCancellable(self).store(in: &set)
  }
}

import Synchronization

/// A type-erasing cancellable object that executes a provided closure when cancelled.
///
/// An `AnyCancellable` instance automatically calls ``cancel()`` when deinitialized, so a
/// pipeline lives exactly as long as its token is kept.
///
/// ```swift
/// var tokens = Set<AnyCancellable>()
/// subject.sink { print($0) }.store(in: &tokens)
/// ```
public final class AnyCancellable: Cancellable, Hashable, @unchecked Sendable {
  // Guards `action`.
  @usableFromInline
  let lock = Locked<Void>(())
  // Fields with unchecked exclusivity skip the runtime check, which costs in "create a PassthroughSubject, subscribe a sink, send one value, cancel".
  // Guarded by `lock`, except in `deinit`, when nothing else can reach the object; taken out
  // (set to `.none`) on the first cancel so it runs once.
  @usableFromInline @exclusivity(unchecked)
  var action: CancelAction

  /// Initializes the cancellable object with the given cancel-time closure.
  ///
  /// ```swift
  /// let token = AnyCancellable { print("cancelled") }
  /// ```
  public init(_ cancel: @escaping () -> Void) {
    action = .closure(cancel)
  }

  /// Constructs a type-erasing cancellable from another cancellable.
  ///
  /// ```swift
  /// let token = AnyCancellable(subscription)
  /// ```
  @inlinable
  public init<C: Cancellable>(_ canceller: C) {
    action = .closure(canceller.cancel)
  }

  /// Cancels `object` when cancelled: what `sink` and `assign` return. It keeps the object as a
  /// reference with a function that knows its type, which, unlike a closure over its `cancel`
  /// method, costs no allocation, and copying it out of the lock is a retain.
  @inlinable
  init<C: Cancellable & AnyObject>(cancelling object: C) {
    action = .object(object) { unsafeDowncast($0, to: C.self).cancel() }
  }

  deinit {
    // No lock: a cancellable being freed is out of every other thread's reach.
    Self.perform(action)
  }

  /// Cancels the activity. Calling it again does nothing.
  public func cancel() {
    var taken = CancelAction.none
    lock.withLock { _ in swap(&taken, &action) }
    Self.perform(taken)
  }

  private static func perform(_ action: CancelAction) {
    switch action {
    case .none: break
    case .closure(let cancel): cancel()
    case .object(let canceller, let cancel): cancel(canceller)
    }
  }

  /// Stores this type-erasing cancellable instance in the specified collection.
  public func store<C: RangeReplaceableCollection>(in collection: inout C)
  where C.Element == AnyCancellable {
    collection.append(self)
  }

  /// Stores this type-erasing cancellable instance in the specified set.
  public func store(in set: inout Set<AnyCancellable>) {
    set.insert(self)
  }

  /// Returns whether the two values are equal.
  public static func == (lhs: AnyCancellable, rhs: AnyCancellable) -> Bool {
    lhs === rhs
  }

  /// Hashes the essential components of this value.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(ObjectIdentifier(self))
  }
}

/// What an `AnyCancellable` does when cancelled.
@usableFromInline
enum CancelAction {
  case none
  case closure(() -> Void)
  /// A cancellable class, with a function that cancels it: unlike a closure over its `cancel`
  /// method, this needs no allocation of its own.
  case object(AnyObject, (AnyObject) -> Void)
}

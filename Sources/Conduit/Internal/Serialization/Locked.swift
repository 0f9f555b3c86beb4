import Synchronization

/// A `Mutex` for state that holds non-Sendable values: subscribers, subscriptions, closures.
///
/// `Mutex.withLock` demands that what goes in and out be `sending`, which state made of
/// subscribers cannot prove. The owner of a `Locked` keeps the promise by hand instead: the state
/// is only touched inside `withLock`, and what is taken out is used after the lock is released,
/// never while holding it (DESIGN.md §3).
///
/// It also makes the lock visible to ThreadSanitizer. On Linux, `Mutex` waits on a futex in code
/// compiled without instrumentation, so a thread that acquires it after waiting would look to
/// ThreadSanitizer as if it raced with the previous owner. An atomic stored with release
/// ordering before each unlock and loaded with acquire ordering after each lock states the
/// happens-before edge that the lock already guarantees; on x86 and ARM both are plain moves.
@usableFromInline
package struct Locked<State>: ~Copyable, @unchecked Sendable {
  // The state lives in the mutex itself, not in a wrapper: a teardown of a generic owner then
  // looks up the metadata of one type fewer.
  @usableFromInline
  let mutex: Mutex<State>
  @usableFromInline
  let handOver = Atomic<Int>(0)

  @inlinable
  package init(_ state: State) {
    // `Mutex.init` takes its value as `sending`; the promise above stands in for the proof.
    nonisolated(unsafe) let state = state
    mutex = Mutex(state)
  }

  @inlinable @inline(__always)
  package borrowing func withLock<Result>(_ body: (inout State) -> Result) -> Result {
    mutex.withLock { state in
      _ = handOver.load(ordering: .acquiring)
      defer { handOver.store(0, ordering: .releasing) }
      return UncheckedSendable(value: body(&state))
    }.value
  }

  /// Replaces the whole state with `newState` and returns what it held, for the caller to let go
  /// of after the lock: the subscriber, values and closures a state machine drops when it ends
  /// may have deinits that call back into the same object, which must not find the lock held.
  @inlinable @inline(__always) @discardableResult
  package borrowing func exchange(_ newState: State) -> State {
    withLock { state in replace(&state, with: newState) }
  }

  /// Takes the object `select` picks from the state, retained once under the lock, and lends it
  /// to `body` after the lock, releasing it when `body` returns: one retain and one release
  /// however many references the object holds, and none for what `body` reads from it. Returns
  /// `nil` without calling `body` when `select` picks nothing. `select` may also update the state.
  @inlinable @inline(__always) @discardableResult
  package borrowing func withRetained<Object: AnyObject, Result>(
    _ select: (inout State) -> Object?, then body: (Object) -> Result
  ) -> Result? {
    let picked = withLock { state in select(&state).map { Unmanaged.passRetained($0) } }
    guard let picked else { return nil }
    defer { picked.release() }
    return picked._withUnsafeGuaranteedRef(body)
  }
}

/// Carries a value through `Mutex.withLock`; see `Locked`.
@usableFromInline
package struct UncheckedSendable<Value>: @unchecked Sendable {
  @usableFromInline
  package var value: Value

  @inlinable
  package init(value: Value) {
    self.value = value
  }
}

/// Puts `next` in `value` and returns what `value` held: how a state machine ends, handing what
/// it let go of to its caller, to be released after the lock.
@inlinable @inline(__always)
package func replace<Value>(_ value: inout Value, with next: Value) -> Value {
  var replaced = next
  swap(&value, &replaced)
  return replaced
}

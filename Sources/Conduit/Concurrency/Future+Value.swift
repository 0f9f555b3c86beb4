// Both getters are inlinable so that the path for a fulfilled future, one lock and no
// suspension, specializes in the caller's module instead of running the getter's unspecialized
// generic code; they are `nonisolated(nonsending)` so that an actor-isolated caller stays on its
// actor for that path instead of hopping to the global executor and back.

extension Future where Failure == Never {
  /// The future's value, awaited from async code.
  ///
  /// A future that is already fulfilled returns its value without suspending. Otherwise the task
  /// waits until the promise is called; any number of tasks may wait at once, and each receives
  /// the same value.
  ///
  /// As in Combine, and like `Task.value`, cancelling the awaiting task does not cut the wait
  /// short: the task resumes when the promise is called, and not before. A future whose promise is
  /// never called keeps its awaiting tasks suspended forever.
  ///
  /// ```swift
  /// let future = Future<Int, Never> { promise in
  ///     Task { promise(.success(await compute())) }
  /// }
  /// let answer = await future.value
  /// ```
  @inlinable
  public nonisolated(nonsending) var value: Output {
    get async {
      if let result = state.withLock({ $0.result }) {
        return result.get()
      }
      return await awaitResult().get()
    }
  }
}

extension Future {
  /// The future's value, awaited from async code; throws the future's failure.
  ///
  /// A future that is already fulfilled returns its value, or throws its failure, without
  /// suspending. Otherwise the task waits until the promise is called; any number of tasks may
  /// wait at once, and each receives the same result.
  ///
  /// As in Combine, and like `Task.value`, cancelling the awaiting task does not cut the wait
  /// short: the task resumes when the promise is called, and not before; no `CancellationError`
  /// is thrown on the future's behalf.
  ///
  /// The error is untyped, as in Combine: with `throws(Failure)`, a `do`/`catch` around
  /// `try await future.value` would catch a `Failure` instead of `any Error`, and code written for
  /// Combine would meet new warnings (an `as` pattern always true, or always failing). To keep the
  /// type, switch over the future's result in a `sink`, or catch `let error as Failure`.
  ///
  /// ```swift
  /// do {
  ///     let user = try await loadUser.value
  /// } catch {
  ///     print("could not load: \(error)")
  /// }
  /// ```
  @inlinable
  public nonisolated(nonsending) var value: Output {
    get async throws {
      if let result = state.withLock({ $0.result }) {
        return try result.get()
      }
      return try await awaitResult().get()
    }
  }

  /// Suspends until the promise is called and returns its result: the slow path of `value`.
  @usableFromInline
  nonisolated(nonsending) func awaitResult() async -> Result<Output, Failure> {
    let delivered = await withCheckedContinuation {
      (continuation: CheckedContinuation<UncheckedSendable<Result<Output, Failure>>, Never>) in
      // Fulfilled between the fast path's look and now, the waiter is fulfilled at once.
      join(FutureValueWaiter<Output, Failure>(continuation))
    }
    return delivered.value
  }
}

/// A task awaiting a future's `value`, in the future's waiting list until the promise is called.
///
/// The future calls `fulfil` once, after its lock, and empties its list as it does: the waiter
/// then leaves with the continuation it resumed.
final class FutureValueWaiter<Output, Failure: Error>: FutureConduitBase<Output, Failure>, CensusScoped,
  @unchecked Sendable
{
  // Written once in `init`, resumed once: the future calls `fulfil` at most once per waiter.
  private let continuation: CheckedContinuation<UncheckedSendable<Result<Output, Failure>>, Never>
  private let census: CensusToken

  var censusScope: CensusScope? { census.scope }

  init(_ continuation: CheckedContinuation<UncheckedSendable<Result<Output, Failure>>, Never>) {
    census = CensusToken(FutureValueWaiter.self)
    self.continuation = continuation
  }

  override func fulfil(_ result: Result<Output, Failure>) {
    // The result is shared by every subscriber and awaiter, as Combine's is; the awaiter stays in
    // its caller's isolation (`nonisolated(nonsending)`), so only a future of Sendable values
    // hands it to tasks in other isolation domains.
    continuation.resume(returning: UncheckedSendable(value: result))
  }
}

// Async iteration: the subscriber behind `values` (`AsyncPublisher`, `AsyncThrowingPublisher`),
// and the base of subscriptions that run a `Task` (`AsyncFuture`, `AsyncSequence.publisher`).
//
// - `AsyncIterationInner.swift`: the subscriber the iterator awaits.
// - `AsyncIterationStateMachine.swift`: its decisions.
// - `TaskOwningSubscription.swift`: a subscription that owns and cancels a task.

/// The subscriber behind `values`: what the publisher delivers waits here for the task that
/// iterates; its decisions are an `AsyncIterationStateMachine`'s.
///
/// The publisher holds it while subscribed; the iterator holds it through an
/// `AsyncIterationLifetime`, which cancels it when the iterator goes away.
@usableFromInline
final class AsyncIterationInner<Output, Failure: Error>: Subscriber, Cancellable, CustomStringConvertible,
  CensusScoped, Sendable
{
  @usableFromInline
  typealias Input = Output
  @usableFromInline
  typealias Machine = AsyncIterationStateMachine<Output, Failure>

  // Guarded by its own lock.
  @usableFromInline
  let state: Locked<Machine>
  @usableFromInline
  let census: CensusToken

  @usableFromInline
  var description: String { "AsyncIteration" }
  @usableFromInline
  var censusScope: CensusScope? { census.scope }

  @inlinable
  init(limit: Machine.Limit) {
    census = CensusToken(Self.self)
    state = Locked(Machine(limit: limit))
  }

  // MARK: Publisher side

  @usableFromInline
  func receive(subscription: any Subscription) {
    switch state.withLock({ $0.receive(subscription: subscription) }) {
    case .cancel: subscription.cancel()
    case .request(let demand): subscription.request(demand)
    case .none: break
    }
  }

  @inlinable
  func receive(_ input: Output) -> Subscribers.Demand {
    // An element dropped is released after the lock.
    var dropped: Output?
    var ending = ValueQueue<UnsafeContinuation<Bool, Never>>()
    state.withLock { $0.receive(input, dropped: &dropped, ending: &ending) }?.resume(returning: true)
    Self.end(&ending)
    return .none
  }

  @usableFromInline
  func receive(completion: Subscribers.Completion<Failure>) {
    var ending = ValueQueue<UnsafeContinuation<Bool, Never>>()
    state.withLock { $0.receive(completion: completion, ending: &ending) }?.resume(returning: true)
    Self.end(&ending)
  }

  /// Wakes parked tasks to end: their `next()` returns `nil`.
  @usableFromInline
  static func end(_ waiters: inout ValueQueue<UnsafeContinuation<Bool, Never>>) {
    while let waiter = waiters.popFirst() { waiter.resume(returning: false) }
  }

  // MARK: Task side

  /// Ends the iteration: the subscription is cancelled and a parked task resumed, to find the end.
  @usableFromInline
  func cancel() {
    var released = Machine.Released()
    guard state.withLock({ $0.cancel(released: &released) }) else { return }
    released.upstream?.cancel()
    Self.end(&released.waiters)
  }

  /// The next element, `nil` at the end or once the task is cancelled, or the publisher's
  /// failure. Suspends only when nothing has arrived, also after asking for one element. Several
  /// tasks may call it at once, as in Combine.
  @inlinable
  func next(isolation actor: isolated (any Actor)?) async throws(Failure) -> Output? {
    if Task.isCancelled {
      cancel()
      return nil
    }
    var asked = false
    while true {
      var value: Output?
      var failure: Failure?
      var upstream: (any Subscription)?
      switch state.withLock({ $0.take(asked: &asked, value: &value, failure: &failure, requesting: &upstream) }) {
      case .value:
        return value.take()
      case .end:
        return nil
      case .failure:
        throw failure.take()!
      case .request:
        upstream.take()!.request(.max(1))
      case .suspend:
        let takesAgain = await withTaskCancellationHandler(
          operation: {
            await withUnsafeContinuation(isolation: actor) { (continuation: UnsafeContinuation<Bool, Never>) in
              if !state.withLock({ $0.park(continuation) }) { continuation.resume(returning: true) }
            }
          }, onCancel: { self.cancel() }, isolation: actor)
        if !takesAgain { return nil }
      }
    }
  }
}

/// What a `values` iterator holds: the subscriber behind it, cancelled when the last copy of
/// the iterator goes away (a loop left with `break` or a thrown error), so that the
/// subscription ends with the loop.
@usableFromInline
final class AsyncIterationLifetime<Output, Failure: Error>: Sendable {
  @usableFromInline
  let inner: AsyncIterationInner<Output, Failure>

  @inlinable
  init(_ inner: AsyncIterationInner<Output, Failure>) {
    self.inner = inner
  }

  deinit {
    inner.cancel()
  }
}

extension Result {
  /// The result of awaiting `body`: what it returns, or the error it throws, with its type kept.
  ///
  /// The standard library's `Result(catching:)` takes only a synchronous body.
  init(awaiting body: () async throws(Failure) -> Success) async {
    do throws(Failure) {
      self = .success(try await body())
    } catch {
      self = .failure(error)
    }
  }
}

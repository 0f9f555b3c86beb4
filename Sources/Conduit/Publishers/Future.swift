import Synchronization

/// A publisher that eventually produces a single value and then finishes or fails.
///
/// The closure runs once, when the future is created, not when it is subscribed to. The first
/// call of the promise wins; later calls are ignored. Every subscriber, including one that
/// arrives after the promise was fulfilled, receives the result: a failure at once, a value as
/// soon as it demands one. The promise may be called from any thread.
///
/// ```swift
/// let future = Future<Int, Never> { promise in
///     Task { promise(.success(await compute())) }
/// }
/// let cancellable = future.sink { print($0) }
/// ```
///
/// The closure receives the promise as a `sending` parameter, so in Swift 6 it may hand the
/// promise to one `Task`, as above, where Combine's signature rejects it. To fulfil a future with
/// the result of async work, `Future { try await … }` says the same more directly; for work that
/// starts only when subscribed to and stops when cancelled, use ``AsyncFuture``.
public final class Future<Output, Failure: Error>: Publisher {
  /// A type that represents a closure to invoke in the future, when an element or error is
  /// available.
  public typealias Promise = (Result<Output, Failure>) -> Void

  // Visible to the module, and to inlined code, for `value`'s fast path (Future+Value.swift).
  @usableFromInline
  struct State {
    @usableFromInline
    var result: Result<Output, Failure>?
    @usableFromInline
    var waiting: [FutureConduitBase<Output, Failure>] = []

    @inlinable
    init() {}
  }

  // Guarded by its own lock.
  @usableFromInline
  let state = Locked(State())

  /// Creates a publisher that invokes a promise closure when the publisher emits an element.
  ///
  /// The promise is a `sending` parameter: the closure may move it into a task or another region
  /// (`Task { promise(.success(await compute())) }`). A closure or function of Combine's type,
  /// `(@escaping Promise) -> Void`, is accepted as before.
  public init(_ attemptToFulfill: @escaping (_ promise: sending @escaping Promise) -> Void) {
    // The promise may be called from any thread: it only settles the future under its lock and
    // hands the result to what waits for it, after the lock.
    let future = UncheckedSendable(value: self)
    attemptToFulfill { result in future.value.fulfil(result) }
  }

  /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
  public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    let conduit = FutureConduit(future: self, downstream: subscriber)
    // The subscription goes out before the conduit can be fulfilled from another thread.
    subscriber.receive(subscription: conduit)
    let active = conduit.isActive
    if !join(conduit, enlisting: active) && active && !conduit.isActive {
      // Cancelled on another thread before it was appended: its own `remove` came too early.
      remove(conduit)
    }
  }

  /// Hands `waiter` the result after the lock if the future is fulfilled, and returns `true`;
  /// otherwise puts it on the waiting list (unless `enlisting` is `false`), for `fulfil` to hand
  /// it the result, and returns `false`. Checking and joining under one lock is what keeps a
  /// fulfilment on another thread from slipping between them.
  @discardableResult
  func join(_ waiter: FutureConduitBase<Output, Failure>, enlisting: Bool = true) -> Bool {
    let result = state.withLock { state -> Result<Output, Failure>? in
      if state.result == nil && enlisting { state.waiting.append(waiter) }
      return state.result
    }
    guard let result else { return false }
    waiter.fulfil(result)
    return true
  }

  /// Settles the future with `result` unless it is settled already, and hands the result to
  /// everything waiting for it (subscriptions, and the tasks awaiting `value`) after the lock.
  func fulfil(_ result: Result<Output, Failure>) {
    let waiting = state.withLock { state -> [FutureConduitBase<Output, Failure>]? in
      guard state.result == nil else { return nil }
      state.result = result
      defer { state.waiting = [] }
      return state.waiting
    }
    for conduit in waiting ?? [] {
      conduit.fulfil(result)
    }
  }

  fileprivate func remove(_ conduit: FutureConduitBase<Output, Failure>) {
    state.withLock { state in
      state.waiting.removeAll { $0 === conduit }
    }
  }
}

// Sendable only when its value is: every subscriber and awaiter, on whatever thread, receives the
// one value the promise was called with. Its state is guarded by `state`'s lock.
extension Future: Sendable where Output: Sendable {}

/// What waits in a future's list for its result: a subscription (`FutureConduit`), or a task
/// awaiting `value` (`FutureValueWaiter`). `fulfil` is called once, after the future's lock.
@usableFromInline
class FutureConduitBase<Output, Failure: Error>: @unchecked Sendable {
  func fulfil(_ result: Result<Output, Failure>) {}
}

/// One subscriber's view of a future: holds a success until the subscriber demands it.
///
/// Described, reflected and shown in playgrounds as Combine's: "Future", with the future (as
/// `parent` and as `subject`), the subscriber and whether it has demanded anything, the first
/// two `nil` once the subscription has ended (and the subscriber's from the moment the result
/// goes out to it).
private final class FutureConduit<Downstream: Subscriber>: FutureConduitBase<
  Downstream.Input, Downstream.Failure
>, Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, CensusScoped,
@unchecked Sendable
{
  typealias Output = Downstream.Input
  typealias Failure = Downstream.Failure

  private enum Action {
    case none
    case deliver(Downstream, Output)
    case fail(Downstream, Failure)
  }

  private enum State {
    case waiting(Downstream, Future<Output, Failure>, demanded: Bool)
    case holding(Downstream, Future<Output, Failure>, Output)
    /// The result is going out; after a value, the completion follows unless the subscriber
    /// cancels meanwhile. The future is kept for the mirror until then.
    case delivering(Future<Output, Failure>)
    case terminal
  }

  // Guarded by its own lock.
  private let state: Locked<State>
  private let census: CensusToken

  var description: String { "Future" }
  var playgroundDescription: Any { description }

  var customMirror: Mirror {
    let (future, downstream, demanded) = state.withLock {
      state -> (Future<Output, Failure>?, Downstream?, Bool) in
      switch state {
      case .waiting(let downstream, let future, let demanded): (future, downstream, demanded)
      case .holding(let downstream, let future, _): (future, downstream, false)
      case .delivering(let future): (future, nil, false)
      case .terminal: (nil, nil, false)
      }
    }
    let children: [Mirror.Child] = [
      ("parent", future as Any), ("downstream", downstream as Any), ("hasAnyDemand", demanded),
      ("subject", future as Any),
    ]
    return Mirror(self, children: children)
  }
  @usableFromInline
  var censusScope: CensusScope? { census.scope }

  init(future: Future<Output, Failure>, downstream: Downstream) {
    census = CensusToken(FutureConduit.self, inheritingFrom: downstream)
    state = Locked(.waiting(downstream, future, demanded: false))
  }

  override func fulfil(_ result: Result<Output, Failure>) {
    let action = state.withLock { state -> Action in
      guard case .waiting(let downstream, let future, let demanded) = state else { return .none }
      switch result {
      case .success(let value):
        if demanded {
          state = .delivering(future)
          return .deliver(downstream, value)
        }
        state = .holding(downstream, future, value)
        return .none
      case .failure(let error):
        state = .delivering(future)
        return .fail(downstream, error)
      }
    }
    switch action {
    case .none: break
    case .deliver(let downstream, let value):
      deliver(value, to: downstream)
    case .fail(let downstream, let error):
      downstream.receive(completion: .failure(error))
      withExtendedLifetime(state.exchange(.terminal)) {}
    }
  }

  var isActive: Bool {
    state.withLock { state in
      if case .terminal = state { return false }
      return true
    }
  }

  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    let ready = state.withLock { state -> (Downstream, Output)? in
      switch state {
      case .waiting(let downstream, let future, _):
        state = .waiting(downstream, future, demanded: true)
        return nil
      case .holding(let downstream, let future, let value):
        state = .delivering(future)
        return (downstream, value)
      case .delivering, .terminal:
        return nil
      }
    }
    guard let (downstream, value) = ready else { return }
    deliver(value, to: downstream)
  }

  /// Sends the value, then `.finished` unless the subscriber cancelled from inside `receive`.
  private func deliver(_ value: Output, to downstream: Downstream) {
    _ = downstream.receive(value)
    // The future leaves after the lock.
    var stillSubscribed = false
    withExtendedLifetime(
      state.withLock { state -> Future<Output, Failure>? in
        guard case .delivering(let future) = state else { return nil }
        state = .terminal
        stillSubscribed = true
        return future
      }
    ) {}
    if stillSubscribed { downstream.receive(completion: .finished) }
  }

  func cancel() {
    // What the state held leaves after the lock: the subscriber's and the value's deinits may
    // cancel this subscription.
    switch state.exchange(.terminal) {
    case .waiting(_, let future, _), .holding(_, let future, _): future.remove(self)
    case .delivering, .terminal: break
    }
  }
}

import Synchronization

/// A publisher that runs an async function when a subscriber first demands a value, and
/// publishes its result: the value then `.finished`, or the error it throws as `.failure`.
///
/// This is an extension to Combine. It is what `Deferred { Future { promise in Task { … } } }`
/// sets out to be, without that pattern's leak: cancelling the subscription cancels the task.
///
/// Unlike ``Future``, it is lazy and unshared: nothing runs before a subscriber's first demand,
/// and each subscription runs the function in a task of its own. The task starts only once the
/// subscriber's `receive(subscription:)` has returned, even when it requests from inside it, so
/// the result never overlaps that call. Cancelling the subscription cancels that task
/// (`operation` sees `Task.isCancelled`, and a `CancellationError` from its awaits) and releases
/// the subscriber at once; nothing reaches the subscriber after `cancel()` returns, except a
/// result whose delivery had already begun on another thread: a value (whose `.finished` is then
/// held back) or a failure. A task that ignores cancellation runs on, and its result is dropped.
///
/// As with ``Future``, requesting `.none` is a programming error that stops with a precondition
/// failure; any positive demand asks for the one result.
///
/// The task inherits the priority (unless `priority` is given) and task-local values of the
/// context that demands the value, but not its actor; the subscriber receives the result on the
/// task's thread, where it was made, so `Output` need not be `Sendable`.
///
/// ```swift
/// let cancellable = AsyncFuture { try await api.fetchUser(id: 42) }
///     .retry(2)
///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
/// ```
public struct AsyncFuture<Output, Failure: Error>: Publisher, Sendable {
  /// The priority of the task each subscription runs, or `nil` for the requesting context's.
  public let priority: TaskPriority?

  /// The work each subscription runs.
  public let operation: @Sendable () async throws(Failure) -> Output

  /// Creates a publisher that runs `operation` in a new task for each subscriber, on its first
  /// demand, and publishes what it returns or throws.
  ///
  /// This is an extension to Combine.
  ///
  /// - Parameters:
  ///   - priority: The priority of each subscription's task.
  ///   - operation: The work to run for each subscriber.
  public init(priority: TaskPriority? = nil, _ operation: @escaping @Sendable () async throws(Failure) -> Output) {
    self.priority = priority
    self.operation = operation
  }

  /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
  public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    let subscription = AsyncFutureSubscription(downstream: subscriber, priority: priority, operation: operation)
    subscriber.receive(subscription: subscription)
    subscription.subscribed()
  }
}

extension AsyncFuture where Failure == Never {
  /// Creates a publisher that never fails, running `operation` in a new task for each
  /// subscriber, on its first demand, and publishing its return value.
  ///
  /// This is an extension to Combine.
  ///
  /// ```swift
  /// let cancellable = AsyncFuture { await renderer.thumbnail(for: photo) }
  ///     .sink { imageView.image = $0 }
  /// ```
  ///
  /// - Parameters:
  ///   - priority: The priority of each subscription's task.
  ///   - operation: The work to run for each subscriber.
  public init(priority: TaskPriority? = nil, _ operation: @escaping @Sendable () async -> Output) {
    self.priority = priority
    self.operation = operation
  }
}

/// The decisions of an `AsyncFuture` subscription, kept apart from its calls out (DESIGN.md §3):
/// each event updates the state under the subscription's lock and says what the subscription
/// does once the lock is released.
///
/// A request made from inside `receive(subscription:)` is only recorded, and the task starts once
/// that call has returned (`subscribed`): a fast operation could otherwise deliver its result on
/// the task's thread while the subscriber is still being subscribed. The task is created after
/// the lock, so it may finish, and the subscriber may cancel, before its handle is recorded
/// (`taskStarted`); the machine settles every order of the three.
struct AsyncFutureStateMachine<Downstream, Operation, Handle, Output, Failure: Error> {
  enum State {
    /// `receive(subscription:)` is running; `demanded` once the subscriber requested in it.
    case subscribing(Downstream, Operation, demanded: Bool)
    /// Subscribed; nothing runs until the first demand.
    case awaitingDemand(Downstream, Operation)
    /// The task is being created, outside the lock.
    case starting(Downstream)
    case running(Downstream, Handle)
    /// The value is going out; `.finished` follows unless the subscriber cancels meanwhile.
    case delivering
    case terminal
  }

  enum Action {
    case none
    /// Run the operation in a new task, then report its handle with `taskStarted`.
    case start(Operation)
    /// Cancel the task, and let go of the subscriber (if any) after the lock.
    case cancel(Handle, releasing: Downstream?)
    /// Let go of what the subscription held, after the lock.
    case release(Downstream, Operation?)
    /// Send the value, then ask `valueDelivered` whether `.finished` follows.
    case deliver(Downstream, Output)
    case fail(Downstream, Failure)
  }

  private(set) var state: State

  init(downstream: Downstream, operation: Operation) {
    state = .subscribing(downstream, operation, demanded: false)
  }

  /// The subscriber's `receive(subscription:)` returned: the task starts if it requested meanwhile.
  mutating func subscribed() -> Action {
    guard case .subscribing(let downstream, let operation, let demanded) = state else { return .none }
    guard demanded else {
      state = .awaitingDemand(downstream, operation)
      return .none
    }
    state = .starting(downstream)
    return .start(operation)
  }

  /// The subscriber requested a positive demand.
  mutating func request() -> Action {
    switch state {
    case .subscribing(let downstream, let operation, _):
      state = .subscribing(downstream, operation, demanded: true)
      return .none
    case .awaitingDemand(let downstream, let operation):
      state = .starting(downstream)
      return .start(operation)
    case .starting, .running, .delivering, .terminal:
      return .none
    }
  }

  /// The task that `start` asked for exists.
  mutating func taskStarted(_ handle: Handle) -> Action {
    switch state {
    case .starting(let downstream):
      state = .running(downstream, handle)
      return .none
    case .terminal:
      // Cancelled while the task was being created (or the task already finished, when
      // cancelling it changes nothing).
      return .cancel(handle, releasing: nil)
    case .subscribing, .awaitingDemand, .running, .delivering:
      return .none
    }
  }

  /// The operation returned or threw.
  mutating func operationFinished(_ result: Result<Output, Failure>) -> Action {
    let downstream: Downstream
    switch state {
    case .starting(let subscriber), .running(let subscriber, _): downstream = subscriber
    case .subscribing, .awaitingDemand, .delivering, .terminal: return .none
    }
    switch result {
    case .success(let value):
      state = .delivering
      return .deliver(downstream, value)
    case .failure(let error):
      state = .terminal
      return .fail(downstream, error)
    }
  }

  /// The subscriber's `receive(_:)` returned; `true` when `.finished` follows.
  mutating func valueDelivered() -> Bool {
    guard case .delivering = state else { return false }
    state = .terminal
    return true
  }

  /// The subscriber cancelled.
  mutating func cancel() -> Action {
    defer { state = .terminal }
    switch state {
    case .subscribing(let downstream, let operation, _), .awaitingDemand(let downstream, let operation):
      return .release(downstream, operation)
    case .starting(let downstream): return .release(downstream, nil)
    case .running(let downstream, let handle): return .cancel(handle, releasing: downstream)
    case .delivering, .terminal: return .none
    }
  }
}

/// One subscriber's run of an `AsyncFuture`'s operation.
///
/// While the task runs it holds the subscription, so a subscriber that keeps no reference to
/// its subscription still receives the result; after a cancel, only until the operation returns.
final class AsyncFutureSubscription<Downstream: Subscriber>: TaskOwningSubscription<
  @Sendable () async throws(Downstream.Failure) -> Downstream.Input
>, Subscription, CustomStringConvertible, CustomPlaygroundDisplayConvertible, CensusScoped, @unchecked Sendable
{
  typealias Output = Downstream.Input
  typealias Failure = Downstream.Failure
  typealias Operation = @Sendable () async throws(Failure) -> Output
  typealias Machine = AsyncFutureStateMachine<Downstream, Operation, Task<Void, Never>, Output, Failure>

  // Guarded by its own lock.
  private let machine: Locked<Machine>
  private let priority: TaskPriority?
  private let census: CensusToken

  var description: String { "AsyncFuture" }
  var playgroundDescription: Any { description }
  var censusScope: CensusScope? { census.scope }

  init(downstream: Downstream, priority: TaskPriority?, operation: @escaping Operation) {
    census = CensusToken(AsyncFutureSubscription.self, inheritingFrom: downstream)
    self.priority = priority
    machine = Locked(Machine(downstream: downstream, operation: operation))
  }

  /// `receive(subscription:)` has returned: the task starts, if demand came meanwhile.
  func subscribed() {
    perform(machine.withLock { $0.subscribed() })
  }

  override func run(_ operation: @escaping Operation) async {
    let result = await Result(awaiting: operation)
    perform(machine.withLock { $0.operationFinished(result) })
  }

  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    perform(machine.withLock { $0.request() })
  }

  func cancel() {
    perform(machine.withLock { $0.cancel() })
  }

  private func perform(_ action: Machine.Action) {
    switch action {
    case .none, .release:
      // What `.release` carries leaves here, after the lock.
      break
    case .start(let operation):
      let task = startTask(priority: priority, running: operation)
      perform(machine.withLock { $0.taskStarted(task) })
    case .cancel(let task, _):
      task.cancel()
    case .deliver(let downstream, let value):
      _ = downstream.receive(value)
      if machine.withLock({ $0.valueDelivered() }) {
        downstream.receive(completion: .finished)
      }
    case .fail(let downstream, let error):
      downstream.receive(completion: .failure(error))
    }
  }
}

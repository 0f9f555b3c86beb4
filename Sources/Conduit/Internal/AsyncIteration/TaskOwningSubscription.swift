/// The base of a subscription that does its work in a `Task` of its own (`AsyncFuture`'s,
/// `AsyncSequencePublisher`'s): it starts the task, which calls back into `run(_:)`.
///
/// A task's closure may capture only values whose types' metatypes are sendable, and a
/// subscription is generic over its subscriber, whose type need not be. The closure is therefore
/// made here, where the only generic parameter is the sendable `Work`, and reaches the subclass
/// through `run(_:)`: one closure context per subscription, holding the subscription and its work.
/// As with `receive(on:)`, the subclass then uses its subscriber's conformances on the task's
/// thread, so a conformance isolated to an actor is not supported.
@usableFromInline
class TaskOwningSubscription<Work: Sendable>: @unchecked Sendable {
  @inlinable
  init() {}

  /// The task's body; each subclass overrides it.
  @usableFromInline
  func run(_ work: Work) async {}

  /// Starts the task that calls `run(work)`.
  @inlinable
  final func startTask(priority: TaskPriority? = nil, running work: Work) -> Task<Void, Never> {
    Task(priority: priority) { [self] in await run(work) }
  }
}

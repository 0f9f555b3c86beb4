import Conduit

/// What one subscriber received from a publisher, values and completion.
struct AwaitedOutcome<Output: Sendable, Failure: Error>: Sendable {
  var values: [Output]
  var completion: Subscribers.Completion<Failure>
}

/// Subscribes to `publisher` with unlimited demand and suspends until it completes: for
/// publishers that deliver from a task, without waiting on the clock.
func awaitedOutcome<P: Publisher>(of publisher: P) async -> AwaitedOutcome<P.Output, P.Failure>
where P.Output: Sendable {
  var cancellable: AnyCancellable?
  let outcome = await withCheckedContinuation {
    (continuation: CheckedContinuation<AwaitedOutcome<P.Output, P.Failure>, Never>) in
    var values: [P.Output] = []
    // A sink's closures are never called at once, so `values` needs no lock.
    cancellable = publisher.sink(
      receiveCompletion: { completion in
        continuation.resume(returning: AwaitedOutcome(values: values, completion: completion))
      },
      receiveValue: { values.append($0) })
  }
  withExtendedLifetime(cancellable) {}
  return outcome
}

import Conduit

/// An actor that consumes a subject the way the documentation shows: `start` makes the sequence
/// with `values(bufferingPolicy:)` and starts a task whose loop runs on the actor; `finished()`
/// waits for the loop to end and returns what it received.
actor ValuesConsumingActor {
  private var received: [Int] = []
  private var loop: Task<Void, Never>?

  func start(_ subject: PassthroughSubject<Int, Never>) {
    let values = subject.values(bufferingPolicy: .unbounded)
    loop = Task {
      for await value in values {
        // The loop body runs on the actor, so it may use the actor's state synchronously.
        assertIsolated()
        received.append(value)
      }
    }
  }

  /// What the loop received, once the subject finished.
  func finished() async -> [Int] {
    await loop?.value
    return received
  }
}

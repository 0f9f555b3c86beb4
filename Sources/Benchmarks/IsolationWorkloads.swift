import Conduit

/// A sink whose closure is isolated to the main actor, fed on the main actor, beside the same
/// sink with a closure that is not isolated (issue 42): the isolated closure carries the
/// compiler's SE-0423 check, which the nonisolated one does not. The main actor's may cost at
/// most 1.5 times the nonisolated one's. The two references show the floor: the check alone,
/// around a `Sink`'s closure called without a subject, where Conduit does almost nothing.
enum IsolationWorkloads {
  /// What both sinks add to.
  final class Total {
    var sum = 0
  }

  nonisolated(unsafe) static let all: [Workload] = [
    Workload(
      "PassthroughSubject.send, 1 sink with a nonisolated closure that adds to a total, per value",
      baseline: "baseline.LockedCall", target: 3
    ) {
      nonisolatedSink()
    },
    Workload(
      "PassthroughSubject.send, 1 sink with a main-actor closure that adds to a total, fed on the main actor, per value",
      baseline: "baseline.LockedCall", target: 4.5,
      note: "target: 1.5 x the nonisolated sink above, which is the same but for the closure's isolation"
    ) {
      // `main.swift` runs the workloads on the main actor.
      MainActor.assumeIsolated { mainActorSink() }
    },
    Workload(
      "reference: Subscribers.Sink.receive(_:) called directly, nonisolated closure, per value",
      baseline: "baseline.LockedCall", target: 3, note: "the floor of the nonisolated sink above"
    ) {
      nonisolatedDirectSink()
    },
    Workload(
      "reference: Subscribers.Sink.receive(_:) called directly, main-actor closure, per value",
      baseline: "baseline.LockedCall", target: 4.5,
      note: "the floor of the main-actor sink above: the difference to the line before is the check alone"
    ) {
      MainActor.assumeIsolated { mainActorDirectSink() }
    },
  ]

  nonisolated static func nonisolatedDirectSink() -> Double {
    let total = Total()
    return measureDirectCalls(total, Subscribers.Sink(receiveCompletion: { _ in }, receiveValue: { total.sum &+= $0 }))
  }

  @MainActor static func mainActorDirectSink() -> Double {
    let total = Total()
    return measureDirectCalls(total, Subscribers.Sink(receiveCompletion: { _ in }, receiveValue: { total.sum &+= $0 }))
  }

  /// The time per value handed straight to `sink`, which adds to `total`.
  static func measureDirectCalls(_ total: Total, _ sink: Subscribers.Sink<Int, Never>) -> Double {
    sink.receive(subscription: Subscriptions.empty)
    defer {
      sink.cancel()
      blackHole(total.sum)
    }
    return measure(operations: 1_000_000) { count in
      for value in 0..<count { _ = sink.receive(value) }
    }
  }

  /// Built outside any actor, so the closure is not isolated.
  nonisolated static func nonisolatedSink() -> Double {
    let subject = PassthroughSubject<Int, Never>()
    let total = Total()
    return measureSends(to: subject, total, subject.sink { total.sum &+= $0 })
  }

  /// Built on the main actor, so Swift isolates the closure to it and checks, at each call, that
  /// it runs there.
  @MainActor static func mainActorSink() -> Double {
    let subject = PassthroughSubject<Int, Never>()
    let total = Total()
    return measureSends(to: subject, total, subject.sink { total.sum &+= $0 })
  }

  /// The time per value `subject` sends to the sink behind `cancellable`, which adds to `total`.
  static func measureSends(
    to subject: PassthroughSubject<Int, Never>, _ total: Total, _ cancellable: AnyCancellable
  ) -> Double {
    defer {
      cancellable.cancel()
      blackHole(total.sum)
    }
    return measure(operations: 1_000_000) { count in
      for value in 0..<count { subject.send(value) }
    }
  }
}

import Conduit
import Dispatch
import Synchronization

/// Issue 18's workloads: schedulers and the time operators, each against a floor measured in
/// the same run.
enum TimeWorkloads {
  nonisolated(unsafe) static let all: [Workload] = [
    Workload(
      "receive(on:) a serial DispatchQueue, one producer, per value", baseline: "baseline.QueueAsync", target: 1.3
    ) {
      let queue = DispatchQueue(label: "benchmarks.receive-on")
      let subject = PassthroughSubject<Int, Never>()
      let done = DispatchSemaphore(value: 0)
      let expected = Atomic<Int>(0)
      let received = Atomic<Int>(0)
      let cancellable = subject.receive(on: queue).sink { value in
        blackHole(value)
        if received.wrappingAdd(1, ordering: .relaxed).newValue == expected.load(ordering: .relaxed) {
          done.signal()
        }
      }
      defer { cancellable.cancel() }
      return measure(operations: 200_000) { count in
        received.store(0, ordering: .relaxed)
        expected.store(count, ordering: .relaxed)
        for value in 0..<count { subject.send(value) }
        done.wait()
      }
    },
    Workload(
      "a burst of values through debounce on a DispatchQueue, per value sent", baseline: "baseline.LockedCall",
      target: 5, note: "the quiet period never ends during the burst: one timer, its deadline moved per value"
    ) {
      burst { $0.debounce(for: .seconds(60), scheduler: $1).eraseToAnyPublisher() }
    },
    Workload(
      "a burst through throttle(latest: true) on a DispatchQueue, per value sent", baseline: "baseline.LockedCall",
      target: 5
    ) {
      burst { $0.throttle(for: .seconds(60), scheduler: $1, latest: true).eraseToAnyPublisher() }
    },
    Workload(
      "values through timeout on a DispatchQueue that never fires, per value", baseline: "baseline.LockedCall",
      target: 5
    ) {
      burst { $0.timeout(.seconds(60), scheduler: $1).eraseToAnyPublisher() }
    },
    Workload(
      "reference: a burst through a hand-written queue.async per value, one producer, not waited for",
      baseline: "baseline.LockedCall", target: 5,
      note: "the floor for timeout, which hands every value to its scheduler as Combine does"
    ) { queueAsyncBurst() },
  ]

  /// Sends a burst of values from one thread through the operator `apply` builds, on a serial
  /// queue whose timers do not come due during the measurement.
  static func burst(
    _ apply: (PassthroughSubject<Int, Never>, DispatchQueue) -> AnyPublisher<Int, Never>
  ) -> Double {
    let queue = DispatchQueue(label: "benchmarks.time-burst")
    let subject = PassthroughSubject<Int, Never>()
    let cancellable = apply(subject, queue).sink { blackHole($0) }
    defer { cancellable.cancel() }
    return measure(operations: 500_000) { count in
      for value in 0..<count { subject.send(value) }
    }
  }

  /// What `burst` costs when the operator is a hand-written `queue.async` per value that hands
  /// the value to the sink: the floor for an operator that delivers every value through its
  /// scheduler.
  static func queueAsyncBurst() -> Double {
    let queue = DispatchQueue(label: "benchmarks.time-burst")
    let consume: @Sendable (Int) -> Void = { value in blackHole(value) }
    let time = measure(operations: 500_000) { count in
      for value in 0..<count { queue.async { consume(value) } }
    }
    queue.sync {}
    return time
  }

  /// A hand-written `queue.async` per value onto a serial queue, one producer, waiting for the
  /// last: the floor for `receive(on:)`.
  static func queueAsync() -> Double {
    let queue = DispatchQueue(label: "benchmarks.queue-async")
    let done = DispatchSemaphore(value: 0)
    let received = Atomic<Int>(0)
    let consume: @Sendable (Int) -> Void = { value in blackHole(value) }
    return measure(operations: 200_000) { count in
      received.store(0, ordering: .relaxed)
      for value in 0..<count {
        queue.async {
          consume(value)
          if received.wrappingAdd(1, ordering: .relaxed).newValue == count { done.signal() }
        }
      }
      done.wait()
    }
  }
}

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
    }
  ]

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

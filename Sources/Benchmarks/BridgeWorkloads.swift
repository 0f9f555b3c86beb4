import Conduit
import Dispatch
import Synchronization

/// Issue 19's workloads: the bridges between publishers and Swift concurrency, against the same
/// work done with the standard library's tools, measured in the same run.
enum BridgeWorkloads {
  static let streamFromAnotherThreadName = "baseline.AsyncStreamFromAnotherThread"

  nonisolated(unsafe) static let all: [Workload] = [
    Workload(
      "for await over .values of (0..<n).publisher.map, per element",
      baseline: ConcurrencyWorkloads.asyncStreamBaseline, target: 0.25,
      note: "each element arrives while next() requests it: no suspension"
    ) {
      measureAsync(operations: 1_000_000) { count in
        var sum = 0
        for await value in (0..<count).publisher.map({ $0 &+ 1 }).values { sum &+= value }
        blackHole(sum)
      }
    },
    Workload(
      "for await over .values(bufferingPolicy: .unbounded) of a subject fed from another thread, per element",
      baseline: streamFromAnotherThreadName, target: 1.0
    ) {
      measureAsync(operations: 500_000) { count in
        let subject = PassthroughSubject<Int, Never>()
        var iterator = subject.values(bufferingPolicy: .unbounded).makeAsyncIterator()
        DispatchQueue.global().async {
          for value in 0..<count { subject.send(value) }
          subject.send(completion: .finished)
        }
        var sum = 0
        while let value = await iterator.next() { sum &+= value }
        blackHole(sum)
      }
    },
    Workload(
      "await future.value of a fulfilled Future", baseline: "baseline.LockedCall", target: 5,
      note: "a fulfilled future answers under its lock, without suspending"
    ) {
      let future = opaque(Future<Int, Never> { $0(.success(1)) })
      return measureAsync(operations: 2_000_000) { count in
        var sum = 0
        for _ in 0..<count { sum &+= await future.value }
        blackHole(sum)
      }
    },
  ]

  /// A `for await` loop over an unbounded `AsyncStream` whose continuation another thread feeds:
  /// the floor for `values` of a subject sent to from another thread.
  static func streamFromAnotherThread() -> Double {
    measureAsync(operations: 500_000) { count in
      let (stream, continuation) = AsyncStream.makeStream(of: Int.self, bufferingPolicy: .unbounded)
      DispatchQueue.global().async {
        for value in 0..<count { continuation.yield(value) }
        continuation.finish()
      }
      var sum = 0
      for await value in stream { sum &+= value }
      blackHole(sum)
    }
  }
}

/// `measure`, for a body that awaits: the runs take place in one task, which the calling thread
/// waits for, so that each run's time is the loop's own and not a task's start.
func measureAsync(runs: Int = 7, operations: Int, _ body: @escaping @Sendable (Int) async -> Void) -> Double {
  let result = Mutex<Double>(.nan)
  let done = DispatchSemaphore(value: 0)
  Task {
    await body(max(1, operations / 10))
    var samples: [Double] = []
    for _ in 0..<runs {
      let start = now()
      await body(operations)
      samples.append(Double(now() - start) / Double(operations))
    }
    samples.sort()
    let median = samples[samples.count / 2]
    result.withLock { $0 = median }
    done.signal()
  }
  done.wait()
  return result.withLock { $0 }
}

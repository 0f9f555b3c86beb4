import Conduit
import Dispatch

/// Issue 19's workloads: an `AsyncSequence` as a publisher, against `for await` over the same
/// kind of sequence, measured in the same run.
enum ConcurrencyWorkloads {
  static let asyncStreamBaseline = "baseline.ForAwaitAsyncStream"
  static let countingBaseline = "baseline.ForAwaitCounting"

  nonisolated(unsafe) static let baselines: [Baseline] = [
    Baseline(name: asyncStreamBaseline) {
      timeDraining(prefilledStream) { stream in
        var sum = 0
        for await value in stream { sum &+= value }
        blackHole(sum)
      }
    },
    Baseline(name: countingBaseline) {
      timeDraining(Counting.init) { sequence in
        var sum = 0
        for await value in sequence { sum &+= value }
        blackHole(sum)
      }
    },
  ]

  nonisolated(unsafe) static let all: [Workload] = [
    Workload(
      "an AsyncSequence as a publisher into a sink, per element", baseline: asyncStreamBaseline, target: 1.5,
      note: "a pre-filled AsyncStream, its elements pulled by the subscription's task"
    ) {
      timeDraining(prefilledStream) { await sinkAll($0.publisher) }
    },
    Workload(
      "reference: a counting AsyncSequence as a publisher into a sink, per element",
      baseline: "baseline.LockedCall", target: 3,
      note: "a sequence that never suspends: what is left is the subscription's lock and the sink per element; "
        + "baseline.ForAwaitCounting is a bare loop the optimizer all but removes"
    ) {
      timeDraining(Counting.init) { await sinkAll($0.publisher) }
    },
  ]

  /// 0, 1, … `count - 1`, without ever suspending.
  struct Counting: AsyncSequence, Sendable {
    typealias Element = Int
    typealias Failure = Never

    let count: Int

    struct AsyncIterator: AsyncIteratorProtocol {
      typealias Failure = Never
      let count: Int
      var next = 0

      @inline(__always)
      mutating func next() async -> Int? {
        guard next < count else { return nil }
        defer { next &+= 1 }
        return next
      }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(count: count) }
  }

  /// An `AsyncStream` holding `count` elements, finished: its `next()` never suspends.
  static func prefilledStream(_ count: Int) -> AsyncStream<Int> {
    let (stream, continuation) = AsyncStream.makeStream(of: Int.self, bufferingPolicy: .unbounded)
    for value in 0..<count { continuation.yield(value) }
    continuation.finish()
    return stream
  }

  /// Subscribes a sink to `publisher` and returns once it has finished.
  static func sinkAll<P: Publisher>(_ publisher: P) async where P.Failure == Never {
    await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
      // Not through `sink(…)`: its `AnyCancellable` would cancel when let go of here. The
      // subscription keeps the sink until the completion.
      publisher.subscribe(
        Subscribers.Sink(receiveCompletion: { _ in continuation.resume() }, receiveValue: { blackHole($0) }))
    }
  }

  /// The median nanoseconds per element that `drain` takes to consume a sequence of `make`'s,
  /// in a task, the sequence built before the clock starts.
  static func timeDraining<Elements: AsyncSequence & Sendable>(
    runs: Int = 7, operations: Int = 200_000, _ make: (Int) -> Elements,
    _ drain: @escaping @Sendable (Elements) async -> Void
  ) -> Double {
    var samples: [Double] = []
    for run in 0...runs {
      let count = run == 0 ? operations / 10 : operations
      let sequence = make(count)
      let done = DispatchSemaphore(value: 0)
      let start = now()
      Task {
        await drain(sequence)
        done.signal()
      }
      done.wait()
      let elapsed = now() - start
      if run > 0 { samples.append(Double(elapsed) / Double(count)) }
    }
    samples.sort()
    return samples[samples.count / 2]
  }
}

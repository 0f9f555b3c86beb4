import Conduit
import Dispatch
import Synchronization

/// Pipelines built and cancelled without pause, on a thread and in a task, while the other loads
/// run: brief subscribers to the fan-in subject and to the share, `flatMap` of `AsyncFuture`,
/// `debounce`, `delay` and `timeout` cancelled with work in flight, `values` loops cancelled
/// mid-stream, and synchronous pipelines that must deliver everything before they are
/// cancelled. A cancelled pipeline may cut its values off, never repeat or reorder them, and it
/// must free every object it made: the census at the end counts what any of them left behind.
final class ChurnLoad: Load {
  private let fanIn: PassthroughSubject<Tagged, Never>
  private let fanInProducers: Int
  private let shared: AnyPublisher<Tagged, Never>
  private let sharedProducers: Int
  private let queue = DispatchQueue(label: "soak.churn")
  private let tally = ChurnTally()

  init(fanIn: FanInLoad, share: ShareLoad) {
    self.fanIn = fanIn.subject
    fanInProducers = fanIn.producers.count
    shared = share.shared
    sharedProducers = share.producers.count
  }

  var ledgers: [any Ledger] { [tally] }

  func start(on run: LoadRun) {
    run.thread {
      var round = 0
      while run.isRunning {
        self.churnOnThread(round: round)
        run.countPipeline()
        round += 1
      }
    }
    run.task {
      var round = 0
      while run.isRunning {
        await self.churnInTask(round: round)
        run.countPipeline()
        round += 1
      }
    }
  }

  func finish() async {}

  private static func randomPause(upTo microseconds: Int) {
    ProducerThread.pause(microseconds: Int.random(in: 0...microseconds))
  }

  private static func randomSleep(upTo microseconds: Int) async {
    try? await Task.sleep(for: .microseconds(Int.random(in: 0...microseconds)))
  }

  private func churnOnThread(round: Int) {
    switch round % 8 {
    case 0: briefSubscriber(to: fanIn, named: "fan-in", producers: fanInProducers)
    case 1: briefSubscriber(to: shared, named: "share", producers: sharedProducers)
    case 2: requestsCancelledMidway()
    case 3: debounceCancelled()
    case 4: delayCancelled(round: round)
    case 5: synchronousSubject()
    case 6: synchronousSequence()
    default: synchronousZip()
    }
  }

  private func churnInTask(round: Int) async {
    switch round % 4 {
    case 0: await valuesLoopCancelled(over: fanIn.values, named: "for await in values", producers: fanInProducers)
    case 1:
      await valuesLoopCancelled(
        over: shared.values(bufferingPolicy: .bufferingNewest(8)), named: "for await in values(.bufferingNewest(8))",
        producers: sharedProducers)
    case 2: await asyncFutureCancelled()
    default: await timeoutsCancelledMidway()
    }
  }

  /// A sink that subscribes to a busy publisher, stays for up to 2 ms and cancels.
  private func briefSubscriber<P: Publisher<Tagged, Never>>(to publisher: P, named name: String, producers: Int) {
    let ledger = LossyLedger("churn: a brief subscriber to the \(name)", producers: producers)
    let cancellable = publisher.filter { $0.sequence >= 0 }.map { $0 }.sink { ledger.receive($0) }
    ChurnLoad.randomPause(upTo: 2_000)
    cancellable.cancel()
    tally.add(ledger.delivered)
  }

  /// Sixteen requests whose `AsyncFuture`s are still running, some of them, when the pipeline
  /// is cancelled.
  private func requestsCancelledMidway() {
    let requests = PassthroughSubject<Int, Never>()
    let ledger = UniqueLedger("churn: flatMap { AsyncFuture } cancelled midway")
    let cancellable = requests.flatMap { request in
      AsyncFuture {
        await Task.yield()
        return request
      }
    }
    .sink { ledger.receive($0) }
    for request in 0..<16 { requests.send(request) }
    ChurnLoad.randomPause(upTo: 1_000)
    cancellable.cancel()
    tally.add(ledger.count)
  }

  /// A burst into `debounce` on a queue, cancelled with its timer pending or not.
  private func debounceCancelled() {
    let subject = PassthroughSubject<Tagged, Never>()
    let ledger = LossyLedger("churn: debounce cancelled", producers: 1)
    let producer = Producer(index: 0)
    let cancellable = subject.debounce(for: .microseconds(300), scheduler: queue).sink { ledger.receive($0) }
    for _ in 0..<8 {
      producer.sendNext { subject.send($0) }
      ChurnLoad.randomPause(upTo: 500)
    }
    cancellable.cancel()
    tally.add(ledger.delivered)
  }

  /// A value `delay`ed on a queue, cancelled before or after it is due.
  private func delayCancelled(round: Int) {
    let ledger = UniqueLedger("churn: Just.delay cancelled")
    let cancellable = Just(round).delay(for: .milliseconds(1), scheduler: queue).sink { ledger.receive($0) }
    ChurnLoad.randomPause(upTo: 2_000)
    cancellable.cancel()
    tally.add(ledger.count)
  }

  /// A subject sent to on the subscriber's own thread, with unlimited demand, delivers every
  /// value before `send` returns.
  private func synchronousSubject() {
    let subject = PassthroughSubject<Int, Never>()
    let sums = CollectedBox()
    let cancellable = subject.map { $0 * 2 }.scan(0, +).sink { sums.append($0) }
    for value in 1...50 { subject.send(value) }
    cancellable.cancel()
    let received = sums.value ?? []
    if received.count != 50 || received.last != 2_550 {
      findings.record(
        "churn: subject, map, scan, sink on one thread: 50 values sent, \(received.count) arrived, "
          + "the last sum \(received.last.map(String.init) ?? "none") (2550 expected)")
    }
    tally.add(received.count)
  }

  /// A sequence's publisher delivers all of itself, synchronously.
  private func synchronousSequence() {
    let expected = stride(from: 0, to: 64, by: 2).map { $0 * 3 }
    let collected = CollectedBox()
    let cancellable = (0..<64).publisher.filter { $0 % 2 == 0 }.map { $0 * 3 }.collect()
      .sink { collected.set($0) }
    cancellable.cancel()
    if collected.value != expected {
      findings.record("churn: sequence, filter, map, collect: got \(collected.value ?? []), expected \(expected)")
    }
    tally.add(collected.value?.count ?? 0)
  }

  /// Two subjects zipped, sent to alternately on one thread: every pair arrives, in order.
  private func synchronousZip() {
    let left = PassthroughSubject<Int, Never>()
    let right = PassthroughSubject<Int, Never>()
    let pairs = CollectedBox()
    let cancellable = left.zip(right).map { $0 * 1_000 + $1 }.sink { pairs.append($0) }
    for value in 0..<20 {
      left.send(value)
      right.send(value)
    }
    cancellable.cancel()
    let expected = (0..<20).map { $0 * 1_000 + $0 }
    if pairs.value != expected {
      findings.record("churn: zip of two subjects on one thread: got \(pairs.value ?? []), expected \(expected)")
    }
    tally.add(pairs.value?.count ?? 0)
  }

  /// A `for await` loop in a task that leaves after 32 values, or is cancelled after up to 4 ms.
  private func valuesLoopCancelled<S: AsyncSequence & Sendable>(
    over values: S, named name: String, producers: Int
  ) async
  where S.Element == Tagged, S.Failure == Never {
    let ledger = LossyLedger("churn: \(name), cancelled", producers: producers)
    let loop = Task {
      var count = 0
      for await value in values {
        ledger.receive(value)
        count += 1
        if count == 32 { break }
      }
    }
    await ChurnLoad.randomSleep(upTo: 4_000)
    loop.cancel()
    await loop.value
    tally.add(ledger.delivered)
  }

  /// An `AsyncFuture` whose task is cancelled before or after it answers.
  private func asyncFutureCancelled() async {
    let ledger = UniqueLedger("churn: AsyncFuture cancelled")
    let cancellable = AsyncFuture {
      try? await Task.sleep(for: .microseconds(500))
      return 1
    }
    .sink { ledger.receive($0) }
    await ChurnLoad.randomSleep(upTo: 1_000)
    cancellable.cancel()
    tally.add(ledger.count)
  }

  /// Requests answered by `AsyncFuture`s, some slower than their `timeout`, cancelled midway.
  private func timeoutsCancelledMidway() async {
    let requests = PassthroughSubject<Int, Never>()
    let ledger = UniqueLedger("churn: flatMap { AsyncFuture.timeout } cancelled midway")
    let queue = queue
    let cancellable = requests.flatMap { request in
      AsyncFuture {
        try? await Task.sleep(for: .microseconds(request * 100))
        return request
      }
      .timeout(.milliseconds(1), scheduler: queue)
    }
    .sink { ledger.receive($0) }
    for request in 0..<16 { requests.send(request) }
    await ChurnLoad.randomSleep(upTo: 2_000)
    cancellable.cancel()
    tally.add(ledger.count)
  }
}

/// What the churn's pipelines delivered, for the figures.
final class ChurnTally: Ledger {
  let name = "churn: pipelines built and cancelled"
  private let arrived = Atomic<Int>(0)

  var delivered: Int { arrived.load(ordering: .relaxed) }

  func add(_ count: Int) {
    arrived.wrappingAdd(count, ordering: .relaxed)
  }
}

/// The integers a synchronous pipeline delivered, read once it has been cancelled.
final class CollectedBox: Sendable {
  private let values = Mutex<[Int]?>(nil)

  var value: [Int]? { values.withLock { $0 } }

  func set(_ all: [Int]) {
    values.withLock { $0 = all }
  }

  func append(_ one: Int) {
    values.withLock { $0 = ($0 ?? []) + [one] }
  }
}

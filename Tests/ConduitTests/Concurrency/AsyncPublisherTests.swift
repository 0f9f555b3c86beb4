import ConduitTesting
import Dispatch
import Synchronization
import Testing

@testable import Conduit

/// `values` of a publisher that cannot fail: Combine's `AsyncPublisher`, and the buffered form.
@Suite(.leakChecked(timeout: .seconds(3)))
struct AsyncPublisherTests {
  @Test func aSynchronousPublishersValuesComeInOrderThenTheLoopEnds() async {
    var received: [Int] = []
    for await value in [1, 2, 3].publisher.map({ $0 * 10 }).values {
      received.append(value)
    }
    #expect(received == [10, 20, 30])
  }

  @Test func eachNextAsksForOneElementAndNothingBefore() async {
    let source = DemandAwaitingPublisher<Int, Never>()
    let values = UncheckedSendable(value: source.values)
    #expect(source.requests.isEmpty)
    let consumer = Task {
      var received: [Int] = []
      for await value in values.value { received.append(value) }
      return received
    }
    await source.waitForRequests(1)
    #expect(source.requests == [.max(1)])
    #expect(source.send(1))
    await source.waitForRequests(2)
    #expect(source.send(2))
    await source.waitForRequests(3)
    source.send(completion: .finished)
    #expect(await consumer.value == [1, 2])
    #expect(source.requests == [.max(1), .max(1), .max(1)])
  }

  @Test func aHotSourcesValuesSentWhileTheBodyRunsAreDropped() async {
    let source = DemandAwaitingPublisher<Int, Never>()
    let values = UncheckedSendable(value: source.values)
    let (bodyEntered, entered) = AsyncStream.makeStream(of: Void.self)
    let (gate, open) = AsyncStream.makeStream(of: Void.self)
    let consumer = Task {
      var received: [Int] = []
      var gates = gate.makeAsyncIterator()
      for await value in values.value {
        received.append(value)
        entered.yield()
        await gates.next()
        if received.count == 2 { break }
      }
      return received
    }
    await source.waitForRequests(1)
    source.send(1)
    var bodies = bodyEntered.makeAsyncIterator()
    await bodies.next()
    #expect(!source.send(2))
    #expect(!source.send(3))
    open.yield()
    await source.waitForRequests(2)
    source.send(4)
    await bodies.next()
    open.yield()
    #expect(await consumer.value == [1, 4])
    #expect(source.isCancelled)
  }

  @Test func theBufferedFormKeepsWhatArrivesWhileTheBodyRuns() async {
    let subject = PassthroughSubject<Int, Never>()
    var iterator = subject.values(bufferingPolicy: .unbounded).makeAsyncIterator()
    for value in 1...3 { subject.send(value) }
    subject.send(completion: .finished)
    var received: [Int] = []
    while let value = await iterator.next() { received.append(value) }
    #expect(received == [1, 2, 3])
    #expect(await iterator.next() == nil)
  }

  @Test func bufferingNewestKeepsTheNewestAndBufferingOldestTheOldest() async {
    func collect(_ policy: AsyncBufferingPolicy) async -> [Int] {
      let subject = PassthroughSubject<Int, Never>()
      var iterator = subject.values(bufferingPolicy: policy).makeAsyncIterator()
      for value in 1...5 { subject.send(value) }
      subject.send(completion: .finished)
      var received: [Int] = []
      while let value = await iterator.next() { received.append(value) }
      return received
    }
    #expect(await collect(.bufferingNewest(2)) == [4, 5])
    #expect(await collect(.bufferingOldest(2)) == [1, 2])
    #expect(await collect(.bufferingNewest(0)) == [])
    #expect(await collect(.bufferingOldest(0)) == [])
  }

  @Test func breakingOutOfTheLoopCancelsTheSubscription() async {
    let events = Locked<[String]>([])
    let source = (0..<10).publisher.handleEvents(
      receiveOutput: { value in events.withLock { $0.append("\(value)") } },
      receiveCancel: { events.withLock { $0.append("cancel") } })
    for await value in source.values where value == 1 {
      break
    }
    #expect(events.withLock { $0 } == ["0", "1", "cancel"])
  }

  @Test func anIteratorThatGoesAwayCancelsTheSubscription() {
    let source = DemandAwaitingPublisher<Int, Never>()
    do {
      let iterator = source.values.makeAsyncIterator()
      withExtendedLifetime(iterator) {}
    }
    #expect(source.isCancelled)
    #expect(source.requests.isEmpty)
  }

  @Test func cancellingTheTaskCancelsTheSubscriptionAndEndsTheLoop() async {
    let source = DemandAwaitingPublisher<Int, Never>()
    let values = UncheckedSendable(value: source.values)
    let consumer = Task {
      var received: [Int] = []
      for await value in values.value { received.append(value) }
      return received
    }
    await source.waitForRequests(1)
    consumer.cancel()
    #expect(await consumer.value == [])
    #expect(source.isCancelled)
  }

  @Test func aLoopInACancelledTaskEndsAtOnceEvenOverASynchronousSource() async {
    let cancelled = Atomic<Bool>(false)
    let source = (0..<Int.max).publisher.handleEvents(receiveCancel: { cancelled.store(true, ordering: .relaxed) })
    let values = UncheckedSendable(value: source.values)
    let consumer = Task {
      var count = 0
      for await _ in values.value {
        count += 1
        if count == 3 { withUnsafeCurrentTask { $0?.cancel() } }
      }
      return count
    }
    #expect(await consumer.value == 3)
    let wasCancelled = cancelled.load(ordering: .relaxed)
    #expect(wasCancelled)
  }

  @Test func aSourceThatCompletesBetweenTwoNextCallsEndsTheLoop() async {
    var iterator = Just(7).values.makeAsyncIterator()
    #expect(await iterator.next() == 7)
    #expect(await iterator.next() == nil)
    #expect(await iterator.next() == nil)
  }

  @Test func aSubscriptionThatArrivesLaterIsAskedForTheElementAWaitingLoopWants() async {
    let queue = DispatchQueue(label: "AsyncPublisherTests.subscribe-on")
    var received: [Int] = []
    for await value in [1, 2, 3].publisher.subscribe(on: queue).values {
      received.append(value)
    }
    #expect(received == [1, 2, 3])
  }

  @MainActor @Test func aLoopOnTheMainActorStaysOnIt() async {
    let subject = PassthroughSubject<Int, Never>()
    var iterator = subject.values(bufferingPolicy: .unbounded).makeAsyncIterator()
    subject.send(1)
    subject.send(completion: .finished)
    var received: [Int] = []
    while let value = await iterator.next(isolation: MainActor.shared) {
      MainActor.assertIsolated()
      received.append(value)
    }
    #expect(received == [1])
  }

  @Test func aLoopInAnActorStaysInIt() async {
    actor Collector {
      var received: [Int] = []
      func collect() async {
        for await value in [1, 2].publisher.values {
          assertIsolated()
          received.append(value)
        }
      }
    }
    let collector = Collector()
    await collector.collect()
    #expect(await collector.received == [1, 2])
  }

  @Test func concurrentProducersLoseNothingWithAnUnboundedBuffer() async {
    let subject = PassthroughSubject<Int, Never>()
    var iterator = subject.values(bufferingPolicy: .unbounded).makeAsyncIterator()
    let producers = 4
    let perProducer = 1_000
    let done = DispatchGroup()
    DispatchQueue.global().async(group: done) {
      DispatchQueue.concurrentPerform(iterations: producers) { producer in
        for index in 0..<perProducer { subject.send(producer * perProducer + index) }
      }
    }
    var received: [Int] = []
    while received.count < producers * perProducer, let value = await iterator.next() {
      received.append(value)
    }
    done.wait()
    subject.send(completion: .finished)
    #expect(await iterator.next() == nil)
    #expect(received.count == producers * perProducer)
    for producer in 0..<producers {
      let mine = received.filter { $0 / perProducer == producer }
      #expect(mine == Array(producer * perProducer..<(producer + 1) * perProducer))
    }
  }

  @Test func manyShortLivedLoopsLeaveNothingBehind() async throws {
    let subject = PassthroughSubject<Int, Never>()
    try await withGrowthCheck(iterations: 10_000) { _ in
      for await _ in [1].publisher.values {}
      let iterator = subject.values.makeAsyncIterator()
      withExtendedLifetime(iterator) {}
      var buffered = subject.values(bufferingPolicy: .unbounded).makeAsyncIterator()
      subject.send(1)
      _ = await buffered.next()
    }
  }
}

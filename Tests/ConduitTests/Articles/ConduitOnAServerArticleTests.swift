import Conduit
import ConduitTesting
import Dispatch
import Synchronization
import Testing

/// The article's worker: works on one job at a time, and asks for the next only when the last
/// one is done.
private final class Worker: Subscriber {
  typealias Input = Int
  typealias Failure = Never

  private(set) var started: [Int] = []
  private var subscription: (any Subscription)?

  func receive(subscription: any Subscription) {
    self.subscription = subscription
    subscription.request(.max(1))  // the first job
  }

  func receive(_ job: Int) -> Subscribers.Demand {
    started.append(job)  // hand the job over; ask for nothing more yet
    return .none
  }

  func receive(completion: Subscribers.Completion<Never>) {
    subscription = nil
  }

  /// Called when the job in hand is done.
  func finishJob() {
    subscription?.request(.max(1))  // the next job
  }

  /// Stops taking jobs.
  func stop() {
    subscription?.cancel()
    subscription = nil
  }
}

/// The article's request handler, which also records how many requests it handles at once.
private actor RequestHandler {
  private var inFlight = 0
  private(set) var mostInFlight = 0

  func handle(_ request: Int) async -> Int {
    inFlight += 1
    mostInFlight = max(mostInFlight, inFlight)
    // Suspends, so that other requests may start meanwhile.
    await Task.yield()
    inFlight -= 1
    return request * 2
  }
}

/// The article's message.
private struct Order: Sendable {
  let id: Int
  let amount: Int
}

/// The examples of the article "Conduit on a server"
/// (Sources/Conduit/Conduit.docc/ConduitOnAServer.md), run as they are written there: when this
/// test changes, change the article too.
@Suite(.leakChecked(timeout: .seconds(3)), .timeLimit(.minutes(1)))
struct ConduitOnAServerArticleTests {
  /// "Threads, receive(on:) and subscribe(on:)": the sequence sends, and `map` runs, on `work`;
  /// the subscriber receives on `replies`.
  @Test func subscribeOnAndReceiveOn() async {
    let work = DispatchQueue(label: "orders.work")
    let replies = DispatchQueue(label: "orders.replies")
    let onWork = DispatchSpecificKey<Bool>()
    work.setSpecific(key: onWork, value: true)
    let mappedElsewhere = Atomic<Bool>(false)

    let doubled = [120, 80, 300].publisher
      .subscribe(on: work)  // the sequence is asked, and sends, on `work`
      .map { value in  // so `map` runs on `work`
        if DispatchQueue.getSpecific(key: onWork) != true { mappedElsewhere.store(true, ordering: .relaxed) }
        return value * 2
      }
      .receive(on: replies)  // the subscriber receives on `replies`

    var totals: [Int] = []
    for await total in doubled.values {
      totals.append(total)
    }
    #expect(totals == [240, 160, 600])
    let mappedOnWork = !mappedElsewhere.load(ordering: .relaxed)
    #expect(mappedOnWork)
  }

  /// "Demand is back-pressure": the worker sets the pace of a sequence.
  @Test func aWorkerThatAsksForOneJobAtATime() {
    let worker = Worker()
    (1...3).publisher.subscribe(worker)
    #expect(worker.started == [1])
    worker.finishJob()
    worker.finishJob()
    #expect(worker.started == [1, 2, 3])
    worker.stop()
  }

  /// "Demand is back-pressure": `flatMap(maxPublishers:)` with an `AsyncFuture` per request
  /// handles at most four requests at once. The article subscribes with a sink; this test
  /// collects the replies to await them.
  @Test func flatMapBoundsTheRequestsHandledAtOnce() async {
    let handler = RequestHandler()
    let (requests, incoming) = AsyncStream.makeStream(of: Int.self)
    for request in 1...10 { incoming.yield(request) }
    incoming.finish()

    let replies = requests.publisher  // an AsyncStream of incoming requests
      .flatMap(maxPublishers: .max(4)) { request in
        AsyncFuture { await handler.handle(request) }  // at most four at once
      }

    var collected: [Int] = []
    for await all in replies.collect().values {
      collected = all
    }
    #expect(collected.sorted() == (1...10).map { $0 * 2 })
    #expect(await handler.mostInFlight <= 4)
  }

  /// "What a subject does when senders outpace a subscriber": values sent while the worker has
  /// no demand are dropped.
  @Test func aSubjectDropsWhatASubscriberHasNotAskedFor() {
    let jobs = PassthroughSubject<Int, Never>()
    let worker = Worker()
    jobs.subscribe(worker)
    jobs.send(1)
    jobs.send(2)
    jobs.send(3)
    #expect(worker.started == [1])  // 2 and 3 came while the worker had no demand
    worker.finishJob()
    #expect(worker.started == [1])  // and a later request does not bring them back
    worker.stop()
  }

  /// "What a subject does when senders outpace a subscriber": a buffer keeps what the worker
  /// has not asked for yet, and drops the oldest when it is full.
  @Test func aBufferKeepsWhatTheWorkerHasNotAskedForYet() {
    let jobs = PassthroughSubject<Int, Never>()
    let worker = Worker()
    jobs
      .buffer(size: 2, prefetch: .byRequest, whenFull: .dropOldest)
      .subscribe(worker)
    for job in 1...5 { jobs.send(job) }
    #expect(worker.started == [1])  // the buffer holds 4 and 5
    worker.finishJob()
    worker.finishJob()
    #expect(worker.started == [1, 4, 5])
    worker.stop()
  }

  /// "Watch the census": a live pipeline is counted.
  @Test func theCensusCountsALivePipeline() {
    let subject = PassthroughSubject<Int, Never>()
    let cancellable = subject.map { $0 + 1 }.sink { _ in }
    #expect(Census.liveObjects > 0)
    cancellable.cancel()
  }

  /// The article's main example: a broker client's `AsyncSequence` in through `publisher`, and
  /// the pipeline's output out through `values`.
  @Test func pipelinesAcrossProcessesGoThroughABroker() async {
    // A stand-in for the broker client: its subscription to a topic, as an AsyncSequence.
    let (incomingOrders, broker) = AsyncStream.makeStream(of: Order.self)

    // In: the broker's messages become a publisher, and the pipeline runs in this process.
    let largeOrders = incomingOrders.publisher
      .filter { $0.amount >= 100 }
      .map { "order \($0.id): \($0.amount)" }

    broker.yield(Order(id: 1, amount: 50))
    broker.yield(Order(id: 2, amount: 150))
    broker.yield(Order(id: 3, amount: 300))
    broker.finish()

    // Out: the pipeline becomes an AsyncSequence again, which a task drains into the broker.
    var published: [String] = []
    for await message in largeOrders.values {
      published.append(message)  // with a real client: try await client.publish(message, to: "orders.large")
    }
    #expect(published == ["order 2: 150", "order 3: 300"])
  }
}

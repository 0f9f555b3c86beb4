import Conduit
import Synchronization

/// Requests arrive on subjects from producer threads and tasks, and `flatMap` answers each with
/// an `AsyncFuture` running async work, as a server answers a request: once with no limit on the
/// requests in flight, and once behind a buffer that holds them for
/// `flatMap(maxPublishers: .max(8))`. Every request is promised exactly one response.
///
/// The producers stop sending while too many requests are in flight, as a server stops
/// accepting: a soak whose work piles up without bound measures the pile, not the library.
final class RequestLoad: Load {
  private static let batch = 8
  private static let pauseMicroseconds = 1_000
  /// At this rate fewer than 30 requests are in flight most of the time, and at times over a
  /// hundred, when the cores are busy elsewhere. Each holds a task, a subscription and more, and
  /// malloc keeps the pages of the largest pile it has seen: a limit of thousands lets one such
  /// moment raise resident memory by megabytes for good, which the memory check would take for a
  /// leak.
  private static let inFlightLimit = 256
  /// The buffer holds at most the requests in flight, never more than `inFlightLimit` and one
  /// batch from each producer, so it never fills.
  private static let bufferSize = 1_024

  let open = PassthroughSubject<Tagged, Never>()
  let bounded = PassthroughSubject<Tagged, Never>()
  private let openProducers = (0..<3).map(Producer.init)
  private let boundedProducers = (0..<2).map(Producer.init)
  private let answered: UnorderedLedger
  private let boundedAnswered: UnorderedLedger
  private let cancellables: [AnyCancellable]

  init() {
    let answered = UnorderedLedger("requests: flatMap { AsyncFuture }")
    let boundedAnswered = UnorderedLedger(
      "requests: buffer(.customError), flatMap(maxPublishers: .max(8)) { AsyncFuture }")
    self.answered = answered
    self.boundedAnswered = boundedAnswered
    cancellables = [
      open
        .flatMap { request in AsyncFuture { await RequestLoad.respond(to: request) } }
        .sink { answered.receive($0) },
      bounded
        .setFailureType(to: Overflow.self)
        .buffer(size: RequestLoad.bufferSize, prefetch: .byRequest, whenFull: .customError { Overflow() })
        .flatMap(maxPublishers: .max(8)) { request in
          AsyncFuture<Tagged, Overflow> { await RequestLoad.respond(to: request) }
        }
        .sink(
          receiveCompletion: { completion in
            if case .failure = completion {
              findings.record("\(boundedAnswered.name): the buffer overflowed, though it never holds enough to fill")
            }
          },
          receiveValue: { boundedAnswered.receive($0) }),
    ]
  }

  var ledgers: [any Ledger] { [answered, boundedAnswered] }

  /// The work behind one request: a quarter of them wait on a timer, as a handler waits on I/O;
  /// the rest only yield, as a handler that computes does.
  @Sendable static func respond(to request: Tagged) async -> Tagged {
    if request.sequence % 4 == 0 {
      try? await Task.sleep(for: .microseconds(100 + request.sequence % 400))
    } else {
      await Task.yield()
    }
    return request
  }

  func start(on run: LoadRun) {
    let feeds = [(open, answered, openProducers), (bounded, boundedAnswered, boundedProducers)]
    for (subject, ledger, producers) in feeds {
      // The first producer of each subject is a thread, the others are tasks.
      run.thread {
        while run.isRunning {
          if ledger.inFlight < RequestLoad.inFlightLimit {
            RequestLoad.sendBatch(from: producers[0], to: subject, expectedBy: ledger)
          }
          ProducerThread.pause(microseconds: RequestLoad.pauseMicroseconds)
        }
      }
      for producer in producers.dropFirst() {
        run.task {
          while run.isRunning {
            if ledger.inFlight < RequestLoad.inFlightLimit {
              RequestLoad.sendBatch(from: producer, to: subject, expectedBy: ledger)
            }
            try? await Task.sleep(for: .microseconds(RequestLoad.pauseMicroseconds))
          }
        }
      }
    }
  }

  private static func sendBatch(
    from producer: Producer, to subject: PassthroughSubject<Tagged, Never>, expectedBy ledger: UnorderedLedger
  ) {
    for _ in 0..<batch {
      producer.sendNext { request in
        ledger.expect(request)
        subject.send(request)
      }
    }
  }

  func finish() async {
    for ledger in [answered, boundedAnswered] {
      _ = await waitUntil(timeout: .seconds(30)) { ledger.inFlight == 0 }
      ledger.verify()
    }
    open.send(completion: .finished)
    bounded.send(completion: .finished)
    for cancellable in cancellables { cancellable.cancel() }
  }
}

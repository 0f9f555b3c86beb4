import Conduit
import Synchronization

/// A producer thread and a producer task feed a subject that `map` and `share()` hand to three
/// long-lived sinks, each promised every value in each producer's order; the churn subscribes
/// more sinks to the share and cancels them.
final class ShareLoad: Load {
  private static let batch = 16
  private static let pauseMicroseconds = 1_000

  let subject = PassthroughSubject<Tagged, Never>()
  let producers = (0..<2).map(Producer.init)
  let shared: AnyPublisher<Tagged, Never>
  private let sinks: [OrderedLedger]
  private let cancellables: [AnyCancellable]

  init() {
    let shared = subject.map { Tagged(producer: $0.producer, sequence: $0.sequence) }.share().eraseToAnyPublisher()
    self.shared = shared
    let sinks = (1...3).map { OrderedLedger("share: sink \($0) of 3", producers: 2) }
    self.sinks = sinks
    cancellables = sinks.map { ledger in
      shared.sink(receiveCompletion: { _ in ledger.receiveCompletion() }, receiveValue: { ledger.receive($0) })
    }
  }

  var ledgers: [any Ledger] { sinks }

  func start(on run: LoadRun) {
    let subject = subject
    let producers = producers
    run.thread {
      while run.isRunning {
        for _ in 0..<ShareLoad.batch { producers[0].sendNext { subject.send($0) } }
        ProducerThread.pause(microseconds: ShareLoad.pauseMicroseconds)
      }
    }
    run.task {
      while run.isRunning {
        for _ in 0..<ShareLoad.batch { producers[1].sendNext { subject.send($0) } }
        try? await Task.sleep(for: .microseconds(ShareLoad.pauseMicroseconds))
      }
    }
  }

  func finish() async {
    subject.send(completion: .finished)
    let sinks = sinks
    _ = await waitUntil(timeout: .seconds(30)) { sinks.allSatisfy(\.isFinished) }
    for ledger in sinks {
      if !ledger.isFinished { findings.record("\(ledger.name): the completion never arrived") }
      ledger.verify(against: producers)
    }
    for cancellable in cancellables { cancellable.cancel() }
  }
}

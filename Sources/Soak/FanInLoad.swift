import Conduit
import Dispatch
import Synchronization

/// Two producer threads and two producer tasks feed one subject, which three long-lived
/// subscribers read: a sink behind `map` and `filter`, a sink behind `receive(on:)`, and a
/// `for await` loop in a task over `values(bufferingPolicy: .unbounded)`. Each is promised
/// every value, in the order each producer sent it. The churn subscribes to the same subject.
final class FanInLoad: Load {
  /// Values a producer sends back to back, and the pause after them.
  private static let batch = 16
  private static let pauseMicroseconds = 1_000

  let subject = PassthroughSubject<Tagged, Never>()
  let producers = (0..<4).map(Producer.init)
  private let direct: OrderedLedger
  private let hopped: OrderedLedger
  private let looped: OrderedLedger
  private let cancellables: [AnyCancellable]
  // Made before the producers start, so that the loop misses nothing sent before it first
  // awaits.
  private let values: AsyncBufferedPublisher<Tagged, Never>
  private let loop = Mutex<Task<Void, Never>?>(nil)

  init() {
    let direct = OrderedLedger("fan-in: map, filter, sink", producers: producers.count)
    let hopped = OrderedLedger("fan-in: receive(on: DispatchQueue), sink", producers: producers.count)
    self.direct = direct
    self.hopped = hopped
    looped = OrderedLedger("fan-in: for await in values(bufferingPolicy: .unbounded)", producers: producers.count)
    cancellables = [
      subject
        .map { Tagged(producer: $0.producer, sequence: $0.sequence) }
        .filter { $0.sequence >= 0 }
        .sink(receiveCompletion: { _ in direct.receiveCompletion() }, receiveValue: { direct.receive($0) }),
      subject
        .receive(on: DispatchQueue(label: "soak.fan-in.receive"))
        .sink(receiveCompletion: { _ in hopped.receiveCompletion() }, receiveValue: { hopped.receive($0) }),
    ]
    values = subject.values(bufferingPolicy: .unbounded)
  }

  var ledgers: [any Ledger] { [direct, hopped, looped] }

  func start(on run: LoadRun) {
    let values = values
    let looped = looped
    loop.withLock {
      $0 = Task {
        for await value in values { looped.receive(value) }
        looped.receiveCompletion()
      }
    }
    let subject = subject
    for producer in producers.prefix(2) {
      run.thread {
        while run.isRunning {
          for _ in 0..<FanInLoad.batch { producer.sendNext { subject.send($0) } }
          ProducerThread.pause(microseconds: FanInLoad.pauseMicroseconds)
        }
      }
    }
    for producer in producers.suffix(2) {
      run.task {
        while run.isRunning {
          for _ in 0..<FanInLoad.batch { producer.sendNext { subject.send($0) } }
          try? await Task.sleep(for: .microseconds(FanInLoad.pauseMicroseconds))
        }
      }
    }
  }

  func finish() async {
    subject.send(completion: .finished)
    let ledgers = [direct, hopped, looped]
    if !(await waitUntil(timeout: .seconds(30)) { ledgers.allSatisfy(\.isFinished) }) {
      for ledger in ledgers where !ledger.isFinished {
        findings.record("\(ledger.name): the completion never arrived")
      }
    }
    if let loop = loop.withLock({ $0 }) { await loop.value }
    for ledger in ledgers { ledger.verify(against: producers) }
    for cancellable in cancellables { cancellable.cancel() }
  }
}

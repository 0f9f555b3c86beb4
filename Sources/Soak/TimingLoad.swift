import Conduit
import Dispatch

/// A producer thread sends bursts of values with quiet gaps between them into a subject read
/// through `debounce` and `throttle` (latest and first) on a Dispatch queue. These drop values by
/// design, so each subscriber is promised only that no value repeats or comes out of order; and
/// `debounce` and `throttle(latest: true)` promise that the last value sent arrives once the
/// sending stops.
final class TimingLoad: Load {
  private static let longestBurst = 16
  private static let longestGapMicroseconds = 6_000

  let subject = PassthroughSubject<Tagged, Never>()
  private let producer = Producer(index: 0)
  private let debounced = LossyLedger("timing: debounce(for: 2 ms, scheduler: DispatchQueue)", producers: 1)
  private let throttledLatest = LossyLedger(
    "timing: throttle(for: 5 ms, scheduler: DispatchQueue, latest: true)", producers: 1)
  private let throttledFirst = LossyLedger(
    "timing: throttle(for: 5 ms, scheduler: DispatchQueue, latest: false)", producers: 1)
  private let cancellables: [AnyCancellable]

  init() {
    let queue = DispatchQueue(label: "soak.timing")
    let debounced = debounced
    let throttledLatest = throttledLatest
    let throttledFirst = throttledFirst
    cancellables = [
      subject.debounce(for: .milliseconds(2), scheduler: queue).sink { debounced.receive($0) },
      subject.throttle(for: .milliseconds(5), scheduler: queue, latest: true).sink { throttledLatest.receive($0) },
      subject.throttle(for: .milliseconds(5), scheduler: queue, latest: false).sink { throttledFirst.receive($0) },
    ]
  }

  var ledgers: [any Ledger] { [debounced, throttledLatest, throttledFirst] }

  func start(on run: LoadRun) {
    let subject = subject
    let producer = producer
    run.thread {
      while run.isRunning {
        for _ in 0..<Int.random(in: 1...TimingLoad.longestBurst) { producer.sendNext { subject.send($0) } }
        ProducerThread.pause(microseconds: Int.random(in: 0...TimingLoad.longestGapMicroseconds))
      }
    }
  }

  func finish() async {
    let last = producer.lastSent
    for ledger in [debounced, throttledLatest] {
      if !(await waitUntil(timeout: .seconds(10)) { ledger.lastArrived(from: 0) == last }) {
        findings.record(
          "\(ledger.name): the last value sent, \(last.map(String.init) ?? "none"), never arrived; the last to "
            + "arrive was \(ledger.lastArrived(from: 0).map(String.init) ?? "none")")
      }
    }
    subject.send(completion: .finished)
    for cancellable in cancellables { cancellable.cancel() }
  }
}

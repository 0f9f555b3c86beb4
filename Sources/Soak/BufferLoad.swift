import Conduit
import Dispatch

/// Slow consumers behind `buffer`, each fed by a producer thread. One buffer fails with
/// `.customError` when full, and its producer stops while half a buffer waits, so it never fills:
/// it promises every value in order. The other drops its oldest value when full, and its producer
/// sends faster than its consumer takes: it promises no value twice or out of order, and the
/// last value sent, which a buffer that drops its oldest always keeps.
final class BufferLoad: Load {
  private static let batch = 32
  private static let pauseMicroseconds = 1_000
  private static let losslessSize = 1_024
  private static let droppingSize = 32

  private let lossless = PassthroughSubject<Tagged, Never>()
  private let dropping = PassthroughSubject<Tagged, Never>()
  private let losslessProducer = Producer(index: 0)
  private let droppingProducer = Producer(index: 0)
  private let kept: OrderedLedger
  private let thinned: LossyLedger
  private let losslessConsumer: SlowConsumer<Overflow>
  private let droppingConsumer: SlowConsumer<Never>

  init() {
    let kept = OrderedLedger(
      "buffer(size: \(BufferLoad.losslessSize), .customError), slow consumer", producers: 1)
    let thinned = LossyLedger("buffer(size: \(BufferLoad.droppingSize), .dropOldest), slow consumer", producers: 1)
    self.kept = kept
    self.thinned = thinned
    losslessConsumer = SlowConsumer(
      delay: .microseconds(50), onValue: { kept.receive($0) },
      onCompletion: { completion in
        if case .failure = completion {
          findings.record("\(kept.name): the buffer overflowed, though its producer never lets it fill")
        }
        kept.receiveCompletion()
      })
    droppingConsumer = SlowConsumer(
      delay: .microseconds(200), onValue: { thinned.receive($0) },
      onCompletion: { _ in thinned.receiveCompletion() })
    lossless
      .setFailureType(to: Overflow.self)
      .buffer(size: BufferLoad.losslessSize, prefetch: .byRequest, whenFull: .customError { Overflow() })
      .subscribe(losslessConsumer)
    dropping
      .buffer(size: BufferLoad.droppingSize, prefetch: .byRequest, whenFull: .dropOldest)
      .subscribe(droppingConsumer)
  }

  var ledgers: [any Ledger] { [kept, thinned] }

  func start(on run: LoadRun) {
    let (lossless, losslessProducer, kept) = (lossless, losslessProducer, kept)
    run.thread {
      while run.isRunning {
        if losslessProducer.sent - kept.delivered < BufferLoad.losslessSize / 2 {
          for _ in 0..<BufferLoad.batch { losslessProducer.sendNext { lossless.send($0) } }
        }
        ProducerThread.pause(microseconds: BufferLoad.pauseMicroseconds)
      }
    }
    let (dropping, droppingProducer) = (dropping, droppingProducer)
    run.thread {
      while run.isRunning {
        for _ in 0..<BufferLoad.batch { droppingProducer.sendNext { dropping.send($0) } }
        ProducerThread.pause(microseconds: BufferLoad.pauseMicroseconds)
      }
    }
  }

  func finish() async {
    let (kept, thinned, losslessProducer) = (kept, thinned, losslessProducer)
    _ = await waitUntil(timeout: .seconds(30)) { kept.hasReceivedAll(from: [losslessProducer]) }
    let last = droppingProducer.lastSent
    if !(await waitUntil(timeout: .seconds(30)) { thinned.lastArrived(from: 0) == last }) {
      findings.record(
        "\(thinned.name): the last value sent, \(last.map(String.init) ?? "none"), never arrived; the last to "
          + "arrive was \(thinned.lastArrived(from: 0).map(String.init) ?? "none")")
    }
    lossless.send(completion: .finished)
    dropping.send(completion: .finished)
    _ = await waitUntil(timeout: .seconds(30)) { kept.isFinished && thinned.isFinished }
    if !kept.isFinished { findings.record("\(kept.name): the completion never arrived") }
    if !thinned.isFinished { findings.record("\(thinned.name): the completion never arrived") }
    kept.verify(against: [losslessProducer])
    losslessConsumer.cancel()
    droppingConsumer.cancel()
  }
}

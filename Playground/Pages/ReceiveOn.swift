import Conduit
import Dispatch
import Synchronization

/// Each queue the page makes carries its own name under this key, so code can ask which queue it
/// runs on; `DispatchQueue.getSpecific(key:)` answers `nil` off those queues.
private let queueName = DispatchSpecificKey<String>()

/// A serial queue that knows its own name.
private func namedQueue(_ label: String) -> DispatchQueue {
  let queue = DispatchQueue(label: label)
  queue.setSpecific(key: queueName, value: label)
  return queue
}

/// Where the calling code runs: one of the page's queues, or the thread that runs the page.
private func currentQueue() -> String {
  DispatchQueue.getSpecific(key: queueName) ?? "the page's own thread"
}

/// Lines written on other threads, kept in the order they were written, to be shown once the page
/// has waited for them: shown as they happen, they would interleave with the page's own lines
/// differently on every run.
private final class Transcript: Sendable {
  private let lines = Mutex<[String]>([])

  func write(_ line: String) {
    lines.withLock { $0.append(line) }
  }

  var lineCount: Int { lines.withLock { $0.count } }

  func showAll() {
    for line in lines.withLock({ $0 }) { show(line) }
  }
}

extension Page {
  static let receiveOn = Page(name: "receive-on", title: "delivering values on a DispatchQueue") {
    say(
      "A publisher calls its subscriber on whichever thread it sends from. receive(on:) moves",
      "the calls downstream of it onto a scheduler: each value and the completion are handed to",
      "the scheduler and reach the subscriber when it runs them, in the order they were sent.",
      "Here the scheduler is a serial DispatchQueue named \"conduit.playground.results\", and",
      "every step writes down the queue it runs on.")
    let results = namedQueue("conduit.playground.results")
    let transcript = Transcript()
    let done = DispatchSemaphore(value: 0)
    let prices = PassthroughSubject<Int, Never>()
    let cancellable =
      prices
      .map { price in
        show("map(\(price)) runs on \(currentQueue())")
        return price * 2
      }
      .receive(on: results)
      .sink(
        receiveCompletion: { completion in
          transcript.write("\(completion) arrives on \(currentQueue())")
          done.signal()
        },
        receiveValue: { price in transcript.write("\(price) arrives on \(currentQueue())") })

    say(
      "To show that the values wait for the queue, the page suspends it first: everything",
      "upstream of receive(on:) runs at once, on the sending thread, and nothing arrives yet.")
    results.suspend()
    for price in [10, 20, 30] { prices.send(price) }
    prices.send(completion: .finished)
    show("sent 10, 20, 30 and finished; arrived so far: \(transcript.lineCount)")

    say(
      "Resumed, the queue runs the deliveries. The page waits on a semaphore that the sink",
      "signals on completion, then shows what arrived, and where:")
    results.resume()
    done.wait()
    transcript.showAll()

    say(
      "The completion ended the subscription, so it has let go of the sink and the queue; the",
      "cancel below finds nothing left to stop.")
    cancellable.cancel()
  }
}

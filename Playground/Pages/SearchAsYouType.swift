import ConduitSchedulers
import ConduitTesting
import Dispatch

/// A search field's model. It takes its scheduler rather than using `DispatchQueue.main`, so the
/// page can pass a test scheduler and move time by hand, as a test would.
private final class SearchModel {
  let queries: AnyPublisher<String, Never>

  init(text: some Publisher<String, Never>, scheduler: AnySchedulerOf<DispatchQueue>) {
    queries =
      text
      .debounce(for: .milliseconds(300), scheduler: scheduler)
      // Shows what debounce sends, so the page can show what removeDuplicates then stops.
      .handleEvents(receiveOutput: { show("\(searchStamp(scheduler.now))  debounce lets \"\($0)\" through") })
      .removeDuplicates()
      .eraseToAnyPublisher()
  }
}

/// The virtual time as `t=…ms`, padded to line the timeline up. `DispatchQueue.test` starts its
/// clock at one nanosecond, so the page counts from there.
private func searchStamp(_ time: DispatchQueue.SchedulerTimeType) -> String {
  let start = DispatchQueue.SchedulerTimeType(DispatchTime(uptimeNanoseconds: 1))
  let milliseconds = start.distance(to: time).magnitude / 1_000_000
  let text = "t=\(milliseconds)ms"
  return text + String(repeating: " ", count: max(0, 9 - text.count))
}

extension Page {
  static let searchAsYouType = Page(name: "debounce", title: "debounce and removeDuplicates while typing") {
    say(
      "Searching on every keystroke floods the server with queries nobody waits for. debounce",
      "holds each keystroke until the typing pauses for 300ms, and sends only the text as it",
      "stands then; removeDuplicates skips a query equal to the one before, as when a typo is",
      "typed and deleted during the pause.")
    say(
      "The model takes its scheduler, so the page passes DispatchQueue.test, a TestScheduler",
      "whose clock moves only when the page advances it. No wall-clock time passes, and the",
      "timeline is the same on every run.")
    let scheduler = DispatchQueue.test
    let text = PassthroughSubject<String, Never>()
    let model = SearchModel(text: text, scheduler: scheduler.eraseToAnyScheduler())
    var issued: [String] = []
    let search = model.queries.sink(
      receiveCompletion: { show("\(searchStamp(scheduler.now))  queries \($0)") },
      receiveValue: { query in
        issued.append(query)
        show("\(searchStamp(scheduler.now))  search for \"\(query)\" issued")
      })

    let keystrokes: [(milliseconds: Int, text: String)] = [
      (0, "c"), (120, "co"), (240, "con"),
      (700, "cond"), (820, "con"),
      (1_300, "cond"), (1_420, "condu"), (1_540, "condui"), (1_660, "conduit"),
    ]
    let start = scheduler.now
    for keystroke in keystrokes {
      scheduler.advance(to: start.advanced(by: .milliseconds(keystroke.milliseconds)))
      show("\(searchStamp(scheduler.now))  typed \"\(keystroke.text)\"")
      text.send(keystroke.text)
    }
    scheduler.advance(by: .seconds(1))

    say(
      "Nine keystrokes, three pauses, two searches. At 1120ms debounce let \"con\" through again",
      "(\"cond\" was typed and deleted), and removeDuplicates stopped it: its results are on",
      "screen already.")
    show("keystrokes: \(keystrokes.count), searches issued: \(issued.count) \(issued)")

    say(
      "debounce drops the text still waiting when its upstream finishes: a query typed in the",
      "last 300ms before the field closes is never searched.")
    show("\(searchStamp(scheduler.now))  typed \"conduit swift\", then the field closes")
    text.send("conduit swift")
    text.send(completion: .finished)
    scheduler.advance(by: .seconds(1))
    show("searches issued: \(issued.count)")
    search.cancel()
  }
}

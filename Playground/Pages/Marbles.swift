import Conduit
import ConduitTesting
import Dispatch

/// Shows `diagram` under `label`, aligned with the other rows of one figure.
private func row(_ label: String, _ diagram: String) {
  show(label.padding(toLength: 28) + diagram)
}

extension String {
  fileprivate func padding(toLength length: Int) -> String {
    self + String(repeating: " ", count: max(0, length - count))
  }
}

extension Page {
  static let marbles = Page(name: "marbles", title: "time operators drawn as marble diagrams") {
    say(
      "A marble diagram is a timeline written as text, one symbol per frame: '-' nothing happens,",
      "a letter is a value, '|' the end, '#' a failure, and '(ab)' two events in one frame.",
      "ConduitTesting's TestScheduler reads them and draws them: cold(_:values:frame:) makes a",
      "publisher that plays its diagram from each subscription, hot(_:values:frame:) one that",
      "plays it from now, and marbles(of:values:frame:frames:) subscribes to any publisher,",
      "advances the scheduler one frame at a time and draws what came out. Each frame here is",
      "100ms of DispatchQueue.test's virtual time.")
    let scheduler = DispatchQueue.test
    let frame: DispatchQueue.SchedulerTimeType.Stride = .milliseconds(100)

    say(
      "debounce waits for a quiet spell: here 300ms, three frames, after the last keystroke. A",
      "burst of typing gives one value, the last of the burst.")
    let letters: [Character: String] = ["a": "s", "b": "sw", "c": "swi", "d": "swif", "e": "swift"]
    let typing = "-ab---c-de----|"
    let typed = scheduler.cold(typing, values: letters, frame: frame)
    row("typed", typing)
    row(
      "debounce(300ms)",
      scheduler.marbles(
        of: typed.debounce(for: .milliseconds(300), scheduler: scheduler), values: letters, frame: frame, frames: 20))

    say(
      "throttle lets at most one value through per interval: the first at once, then, with",
      "latest: true, the last of each interval, and with latest: false, the first.")
    let scrolls = "-abc-d---e|"
    let scrolled = scheduler.cold(scrolls, values: letters, frame: frame)
    row("scrolled", scrolls)
    for latest in [true, false] {
      let throttled = scrolled.throttle(for: .milliseconds(300), scheduler: scheduler, latest: latest)
      row(
        "throttle(300ms, \(latest))", scheduler.marbles(of: throttled, values: letters, frame: frame, frames: 15))
    }

    say(
      "flatMap subscribes to a new inner publisher for every value and merges what they all",
      "send; switchToLatest keeps only the newest inner publisher, and cancels the one before.",
      "Each query below starts a cold search, \"-x-x|\" from its subscription: it answers",
      "the query twice, one and three frames after it came.")
    let queries = "-a--b-----|"
    let results: [Character: String] = ["a": "a", "b": "b"]
    let searches = scheduler.cold(queries, values: results, frame: frame)
    let search = { (query: String) in scheduler.cold("-x-x|", values: ["x": query], frame: frame) }
    row("queries", queries)
    row(
      "flatMap { search($0) }",
      scheduler.marbles(of: searches.flatMap(search), values: results, frame: frame, frames: 15))
    row(
      "map(search).switchToLatest",
      scheduler.marbles(of: searches.map(search).switchToLatest(), values: results, frame: frame, frames: 15))

    say(
      "In a test, the diagram is the assertion: #expect(scheduler.marbles(of: ...) ==",
      "\"-----b------e-|\"). When it fails, the test shows the two timelines one above the",
      "other. A value that no key stands for is drawn as its description, such as [42].")
  }
}

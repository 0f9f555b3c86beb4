import Conduit

/// What one operator emitted during the current step of the timeline.
private final class Lane {
  private var events: [String] = []

  func record(_ event: String) { events.append(event) }

  /// The events since the last call, as one table cell; "-" when there were none.
  func drain() -> String {
    defer { events.removeAll() }
    return events.isEmpty ? "-" : events.joined(separator: " ")
  }
}

private func pad(_ text: String, _ width: Int) -> String {
  text + String(repeating: " ", count: max(0, width - text.count))
}

extension Page {
  static let combining = Page(name: "combining", title: "combineLatest versus zip versus merge") {
    say(
      "Three ways to join two streams. All three subscribe to the same two subjects, a and b,",
      "and we send them the same sequence, one step at a time. Each row of the table shows what",
      "each operator emitted during that step (\"-\": nothing).")
    let a = PassthroughSubject<String, Never>()
    let b = PassthroughSubject<String, Never>()

    let latestLane = Lane()
    let zipLane = Lane()
    let mergeLane = Lane()
    let latest = a.combineLatest(b).sink(
      receiveCompletion: { latestLane.record("\($0)") },
      receiveValue: { latestLane.record("(\($0.0),\($0.1))") })
    let zipped = a.zip(b).sink(
      receiveCompletion: { zipLane.record("\($0)") },
      receiveValue: { zipLane.record("(\($0.0),\($0.1))") })
    let merged = a.merge(with: b).sink(
      receiveCompletion: { mergeLane.record("\($0)") },
      receiveValue: { mergeLane.record($0) })

    let steps: [(String, () -> Void)] = [
      ("a.send(\"a1\")", { a.send("a1") }),
      ("a.send(\"a2\")", { a.send("a2") }),
      ("b.send(\"b1\")", { b.send("b1") }),
      ("a.send(\"a3\")", { a.send("a3") }),
      ("b.send(\"b2\")", { b.send("b2") }),
      ("b.send(\"b3\")", { b.send("b3") }),
      ("a finishes", { a.send(completion: .finished) }),
      ("b.send(\"b4\")", { b.send("b4") }),
      ("b finishes", { b.send(completion: .finished) }),
    ]
    let widths = [14, 16, 16]
    show(pad("step", widths[0]) + pad("combineLatest", widths[1]) + pad("zip", widths[2]) + "merge")
    for (label, step) in steps {
      step()
      let cells = [label, latestLane.drain(), zipLane.drain()]
      show(zip(cells, widths).map { pad($0, $1) }.joined() + mergeLane.drain())
    }

    say(
      "merge passes every value through as it comes, from either side, in arrival order. Use it",
      "for several sources of the same kind of event (taps from two buttons). It finishes when",
      "every upstream has finished.")

    say(
      "combineLatest waits until each side has sent once, then sends the latest value of both",
      "on every change: a2 replaced a1 before b1 arrived, so a1 never appears. Use it for state",
      "(form fields, settings): any change recomputes from the current values. It too finishes",
      "only when every upstream has finished, and keeps using a3 after a has finished.")

    say(
      "zip pairs values by position: the first of a with the first of b, the second with the",
      "second. It buffers the side that runs ahead (a1, a2 waited for b1, b2). Use it to match",
      "requests with responses. It finishes as soon as a pair can no longer be completed: once a",
      "had finished with nothing left in its buffer, b4 could never get a partner.")

    for token in [latest, zipped, merged] { token.cancel() }
  }
}

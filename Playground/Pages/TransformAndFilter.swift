import Conduit

/// Subscribes to `publisher` and shows everything it sends on one line: the values, then the
/// completion.
private func showAll<P: Publisher>(_ label: String, _ publisher: P) where P.Failure == Never {
  var values: [String] = []
  let token = publisher.sink(
    receiveCompletion: { completion in
      show("\(label): \(values.isEmpty ? "no values" : values.joined(separator: ", ")), then \(completion)")
    },
    receiveValue: { values.append("\($0)") })
  token.cancel()
}

extension Page {
  static let transformAndFilter = Page(
    name: "transform-and-filter", title: "map, compactMap, filter, removeDuplicates, scan, reduce"
  ) {
    say(
      "Operators are methods on Publisher that return a new publisher. Each one subscribes to the",
      "one before it, so a chain reads top to bottom, in the order values flow through it.",
      "Each line below is one pipeline: the values it sent, then its completion.")

    say("map transforms every value, one in, one out: squares of 1...5.")
    showAll("map { $0 * $0 }", (1...5).publisher.map { $0 * $0 })

    say(
      "compactMap transforms and drops the nils: the way to parse input and skip what does not",
      "parse, without ending the stream on bad data.")
    let typed = ["1", "two", "3", "", "5"]
    show("input: \(typed)")
    showAll("compactMap { Int($0) }", typed.publisher.compactMap { Int($0) })

    say("filter keeps the values its predicate accepts and lets the others go by silently.")
    showAll("filter { isMultiple(of: 3) }", (1...10).publisher.filter { $0.isMultiple(of: 3) })

    say(
      "removeDuplicates drops a value equal to the one just before it. It remembers only the",
      "previous value, not all of them: the 1 at the end comes through again.")
    let readings = [1, 1, 2, 2, 2, 3, 1, 1]
    show("input: \(readings)")
    showAll("removeDuplicates()", readings.publisher.removeDuplicates())

    say(
      "scan carries an accumulator from value to value and sends every intermediate result:",
      "a running total.")
    showAll("scan(0, +)", [1, 2, 3, 4].publisher.scan(0, +))

    say(
      "reduce, collect and count fold the whole stream into one value. Same input, but each sends",
      "a single value, at the very end.")
    showAll("reduce(0, +)", [1, 2, 3, 4].publisher.reduce(0, +))
    showAll("collect()", [1, 2, 3, 4].publisher.collect())
    showAll("count()", [1, 2, 3, 4].publisher.count())

    say(
      "\"At the very end\" means when the upstream finishes. Fed by a subject, count() says",
      "nothing while values arrive, and answers only when the subject completes. On a stream",
      "that never ends, these operators never send anything.")
    let clicks = PassthroughSubject<String, Never>()
    let counting = clicks.count().sink(
      receiveCompletion: { show("count completion: \($0)") },
      receiveValue: { show("count sends \($0)") })
    for click in ["click", "click", "click"] {
      clicks.send(click)
      show("sent \"\(click)\"; count() sends nothing yet")
    }
    clicks.send(completion: .finished)

    say(
      "Chained, they build a small pipeline: parse the typed text, keep the positive numbers,",
      "skip repeats, and keep a running total. Order matters: removeDuplicates comes after",
      "filter, so it never sees the -2 and the oops, and the third 4 counts as a repeat.")
    let entries = ["4", "4", "-2", "oops", "4", "6", "6", "1"]
    show("input: \(entries)")
    let chain = entries.publisher
      .compactMap { Int($0) }
      .filter { $0 > 0 }
      .removeDuplicates()
      .scan(0, +)
    showAll("compactMap, filter, removeDuplicates, scan", chain)

    counting.cancel()
  }
}

import Conduit

extension Page {
  static let basics = Page(name: "basics", title: "Just, Sequence.publisher and sink") {
    say(
      "A publisher describes values over time; nothing happens until a subscriber attaches.",
      "Just publishes exactly one value, then finishes. sink attaches a subscriber that asks",
      "for every value and calls one closure per value and one for the completion.")
    let just = Just(42).sink(
      receiveCompletion: { show("completion: \($0)") },
      receiveValue: { show("value: \($0)") })

    say("Any Sequence becomes a publisher with .publisher: one value per element, then .finished.")
    let sequence = ["red", "green", "blue"].publisher.sink(
      receiveCompletion: { show("completion: \($0)") },
      receiveValue: { show("value: \($0)") })

    say(
      "These publishers are synchronous: everything arrives while sink is still running, so the",
      "line after the sink call comes last.")
    let range = (1...3).publisher.sink { show("value: \($0)") }
    show("sink returned")

    say(
      "sink returns an AnyCancellable. Keep it while you want values; cancel it (or let it go)",
      "to stop. These pipelines have already finished, so cancelling them changes nothing.")
    for token in [just, sequence, range] { token.cancel() }
    show("cancelled 3 finished pipelines")
  }
}

import Conduit

extension Page {
  static let cancellation = Page(name: "cancellation", title: "store(in:), cancel, and the discarded token") {
    say(
      "A subscription lives as long as its AnyCancellable. store(in:) keeps tokens in a set that",
      "belongs to whoever owns the subscriptions, typically a view model.")
    let prices = PassthroughSubject<Int, Never>()
    var tokens = Set<AnyCancellable>()
    prices.sink { show("chart got \($0)") }.store(in: &tokens)
    prices.sink { show("ticker got \($0)") }.store(in: &tokens)
    prices.send(100)

    say("cancel() stops one subscription; the publisher stops sending to it right away.")
    let alerts = prices.sink { show("alert got \($0)") }
    prices.send(101)
    alerts.cancel()
    prices.send(102)

    say("Emptying the set releases its tokens, and a released token cancels its subscription.")
    tokens.removeAll()
    prices.send(103)
    show("(nothing: every subscription is gone)")

    say(
      "The pitfall: discard the token with `_ =` and it is released at once, cancelling the",
      "subscription before anything is sent. The sink receives nothing.")
    _ = prices.sink { show("discarded sink got \($0)") }
    prices.send(104)
    show("(nothing: the discarded sink was cancelled immediately)")

    say(
      "It only seems to work with a synchronous publisher, which delivers everything before",
      "sink returns the token you throw away.")
    _ = [1, 2].publisher.sink { show("got \($0) before the token was discarded") }
  }
}

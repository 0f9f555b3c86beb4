import Conduit

/// A fake price server. Opening a connection is the expensive part; `feed` opens one for every
/// subscription it gets, and `publish` pushes a price down every open connection.
private final class PriceServer {
  private(set) var connectionsOpened = 0
  private var connections: [PassthroughSubject<Int, Never>] = []

  /// A cold publisher: each subscriber gets its own, new connection.
  var feed: Deferred<PassthroughSubject<Int, Never>> {
    Deferred { [self] in
      connectionsOpened += 1
      show("server: connection #\(connectionsOpened) opened (the expensive part)")
      let connection = PassthroughSubject<Int, Never>()
      connections.append(connection)
      return connection
    }
  }

  func publish(_ price: Int) {
    show("server publishes \(price)")
    for connection in connections { connection.send(price) }
  }
}

extension Page {
  static let coldVersusHot = Page(name: "cold-vs-hot", title: "share, multicast, and late subscribers") {
    say(
      "Most publishers are cold: each subscriber gets its own run of the work. A cold publisher",
      "built with Deferred opens a new connection for every subscriber, so two subscribers cost",
      "two connections.")
    let coldServer = PriceServer()
    let coldA = coldServer.feed.sink { show("A got \($0)") }
    let coldB = coldServer.feed.sink { show("B got \($0)") }
    coldServer.publish(100)
    show("connections opened: \(coldServer.connectionsOpened)")

    say(
      "share() makes it hot: the first subscriber opens one upstream subscription and every",
      "other subscriber joins it. Two subscribers, one connection.")
    let server = PriceServer()
    let shared = server.feed.share()
    let sharedA = shared.sink { show("A got \($0)") }
    let sharedB = shared.sink { show("B got \($0)") }
    server.publish(100)
    show("connections opened: \(server.connectionsOpened)")

    say(
      "share() keeps no values. A subscriber that joins late sees only what is sent after it",
      "arrives: C missed 100, and gets nothing until the next price.")
    let sharedC = shared.sink { show("C got \($0)") }
    show("C subscribed")
    server.publish(101)
    show("connections opened: \(server.connectionsOpened)")

    say(
      "multicast(subject:) shares through a subject you choose, and connects to the upstream only",
      "when you call connect(), so every subscriber can be in place before anything is sent.",
      "Through a CurrentValueSubject, every subscriber gets the latest value on arrival. The",
      "subject needs an initial value; here 0 stands for \"no price yet\".")
    let multicastServer = PriceServer()
    let multicast = multicastServer.feed.multicast(subject: CurrentValueSubject<Int, Never>(0))
    let multicastA = multicast.sink { show("A got \($0)") }
    show("before connect(): connections opened: \(multicastServer.connectionsOpened)")
    let connection = multicast.connect()
    multicastServer.publish(100)
    let multicastC = multicast.sink { show("C got \($0)") }
    show("C subscribed late and got the latest price at once")
    multicastServer.publish(101)
    show("connections opened: \(multicastServer.connectionsOpened)")

    say(
      "share(replay: 1) is an extension beyond Combine, which has no replaying share. It connects",
      "on the first subscriber like share(), and replays the last value to late subscribers like",
      "the CurrentValueSubject, without an initial value and without connect().")
    let replayServer = PriceServer()
    let replayed = replayServer.feed.share(replay: 1)
    let replayedA = replayed.sink { show("A got \($0)") }
    replayServer.publish(100)
    let replayedC = replayed.sink { show("C got \($0)") }
    show("C subscribed late and got the latest price at once")
    replayServer.publish(101)
    show("connections opened: \(replayServer.connectionsOpened)")

    say("Cancelling connect()'s token disconnects the multicast from its upstream.")
    connection.cancel()
    multicastServer.publish(102)
    show("(nothing: the multicast is disconnected)")

    for token in [coldA, coldB, sharedA, sharedB, sharedC, multicastA, multicastC, replayedA, replayedC] {
      token.cancel()
    }
  }
}

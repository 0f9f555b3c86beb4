import Conduit

/// A fake search backend. Each search is a subject that we answer by hand, so the page decides
/// exactly when each response arrives; no timers, no threads.
private final class SearchService {
  private var pending: [String: PassthroughSubject<String, Never>] = [:]

  /// A publisher that searches for `term` when subscribed, and says when it starts and when it
  /// is cancelled.
  func search(_ term: String) -> AnyPublisher<String, Never> {
    let response = PassthroughSubject<String, Never>()
    pending[term] = response
    return
      response
      .handleEvents(
        receiveSubscription: { _ in show("search for '\(term)' starts") },
        receiveCancel: { show("search for '\(term)' cancelled") }
      )
      .eraseToAnyPublisher()
  }

  /// The server answers the search for `term`: one result, then the end of the response.
  func answer(_ term: String) {
    show("server answers '\(term)'")
    let response = pending.removeValue(forKey: term)
    response?.send("results for '\(term)'")
    response?.send(completion: .finished)
  }
}

extension Page {
  static let flattening = Page(name: "flattening", title: "flatMap versus switchToLatest: search as you type") {
    say(
      "Search as you type: each query becomes a request, a publisher of its own. map would give",
      "us a publisher of publishers; flatMap and switchToLatest flatten it into one stream of",
      "results. The difference is what happens to a request that is still running when the",
      "next query arrives. The server here answers only when the page tells it to.")

    say(
      "flatMap subscribes to every request and merges all their results. The user types s, sw,",
      "swi; the server answers the newest query first and the oldest last.")
    let flatService = SearchService()
    let flatQuery = PassthroughSubject<String, Never>()
    let flat = flatQuery.flatMap { flatService.search($0) }
      .sink { show("screen shows \($0)") }
    for query in ["s", "sw", "swi"] { flatQuery.send(query) }
    for query in ["swi", "sw", "s"] { flatService.answer(query) }
    show("(wrong: the screen ends on results for 's' while the user typed 'swi')")

    say(
      "switchToLatest keeps only the newest request: when a new one arrives it cancels the one",
      "in flight, then subscribes to the new one. Same typing, same answers:")
    let switchService = SearchService()
    let switchQuery = PassthroughSubject<String, Never>()
    let switching = switchQuery.map { switchService.search($0) }
      .switchToLatest()
      .sink { show("screen shows \($0)") }
    for query in ["s", "sw", "swi"] { switchQuery.send(query) }
    for query in ["swi", "sw", "s"] { switchService.answer(query) }
    show("(the late answers for 'sw' and 's' reach nobody: their searches were cancelled)")

    say(
      "flatMap(maxPublishers: .max(1)) runs one request at a time: it asks its upstream for the",
      "next query only after the current request finishes. Requests run in order, never",
      "overlapping: what you want for writes to a server that must happen one by one.")
    let serialService = SearchService()
    let serial = ["s", "sw", "swi"].publisher
      .flatMap(maxPublishers: .max(1)) { serialService.search($0) }
      .sink(
        receiveCompletion: { show("completion: \($0)") },
        receiveValue: { show("screen shows \($0)") })
    for query in ["s", "sw", "swi"] { serialService.answer(query) }

    say(
      "A trap with that: it works above because a sequence waits until it is asked. A subject",
      "does not wait. It drops a value its subscriber has not asked for, so queries typed while",
      "a request runs are lost.")
    let droppingService = SearchService()
    let droppingQuery = PassthroughSubject<String, Never>()
    let dropping = droppingQuery.flatMap(maxPublishers: .max(1)) { droppingService.search($0) }
      .sink { show("screen shows \($0)") }
    for query in ["s", "sw"] { droppingQuery.send(query) }
    droppingService.answer("s")
    droppingQuery.send("swi")
    droppingService.answer("swi")
    show("('sw' was never searched: it was sent while 's' was running)")

    for token in [flat, switching, serial, dropping] { token.cancel() }
  }
}

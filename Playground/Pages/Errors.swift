import Conduit

/// Why the fake server refused a request.
private struct ServerError: Error, CustomStringConvertible {
  let reason: String
  var description: String { "ServerError(\(reason))" }
}

/// A profile request whose first `failures` attempts fail. `Deferred` runs its closure on
/// every subscription, so each (re)subscription is a new attempt.
private func flakyProfile(failingFirst failures: Int) -> some Publisher<String, ServerError> {
  var attempts = 0
  return Deferred { () -> Result<String, ServerError>.Publisher in
    attempts += 1
    if attempts <= failures {
      show("attempt #\(attempts): fails")
      return Result.Publisher(ServerError(reason: "timeout on attempt \(attempts)"))
    }
    show("attempt #\(attempts): succeeds")
    return Result.Publisher("profile")
  }
}

/// Fetches user `id`; the server fails for user 2.
private func fetchUser(_ id: Int) -> Result<String, ServerError>.Publisher {
  show("fetching user \(id)")
  if id == 2 { return Result.Publisher(ServerError(reason: "user 2 not found")) }
  return Result.Publisher("user \(id)")
}

extension Page {
  static let errors = Page(name: "errors", title: "retry, replaceError, and where to catch a failure") {
    say(
      "A failure is a completion: it ends the pipeline, and the subscriber gets no more values.",
      "A request that fails its first two attempts, with nothing to handle the failure:")
    let bare = flakyProfile(failingFirst: 2).sink(
      receiveCompletion: { show("completion: \($0)") },
      receiveValue: { show("value: \($0)") })

    say(
      "retry(n) catches a failure and subscribes to the upstream again, up to n more times.",
      "Subscribing again reruns the Deferred closure: a fresh attempt. Two retries are enough:")
    let retried = flakyProfile(failingFirst: 2).retry(2).sink(
      receiveCompletion: { show("completion: \($0)") },
      receiveValue: { show("value: \($0)") })

    say(
      "With one retry, the second failure goes through. replaceError after it turns that last",
      "failure into a fallback value and a normal finish: retry first, then give up gracefully.",
      "(In the other order retry would see no failure to retry.) The result cannot fail any",
      "more, so its Failure type is Never.")
    let fallback = flakyProfile(failingFirst: 2)
      .retry(1)
      .replaceError(with: "cached profile")
      .sink(
        receiveCompletion: { show("completion: \($0)") },
        receiveValue: { show("value: \($0)") })

    say(
      "Where replaceError goes matters as much. A stream of user ids, each fetched with flatMap;",
      "fetching user 2 fails. First, replaceError after flatMap:")
    let idsA = PassthroughSubject<Int, Never>()
    let after = idsA.flatMap { fetchUser($0) }
      .replaceError(with: "placeholder")
      .sink(
        receiveCompletion: { show("completion: \($0)") },
        receiveValue: { show("value: \($0)") })
    for id in 1...3 { idsA.send(id) }
    show("(user 3 was never fetched: the first inner failure ended the whole pipeline)")

    say(
      "The inner failure travelled out of flatMap and ended it, cancelling the subscription to",
      "the ids. replaceError could only end things politely. Now replaceError inside flatMap, on",
      "each request: a failed fetch becomes a placeholder, and the outer stream keeps going.")
    let idsB = PassthroughSubject<Int, Never>()
    let inside = idsB.flatMap { id in fetchUser(id).replaceError(with: "placeholder for \(id)") }
      .sink(
        receiveCompletion: { show("completion: \($0)") },
        receiveValue: { show("value: \($0)") })
    for id in 1...3 { idsB.send(id) }
    idsB.send(completion: .finished)

    say("The same holds for catch and retry: inside flatMap they act per request; after it, once.")

    for token in [bare, retried, fallback, after, inside] { token.cancel() }
  }
}

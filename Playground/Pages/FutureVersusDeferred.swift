import Conduit

extension Page {
  static let futureVersusDeferred = Page(
    name: "future-vs-deferred", title: "Future runs once; Deferred runs per subscriber"
  ) {
    say("Future runs its closure once, when it is created, even if nobody ever subscribes.")
    var futureRuns = 0
    let future = Future<Int, Never> { promise in
      futureRuns += 1
      show("Future closure runs (run #\(futureRuns))")
      promise(.success(futureRuns * 10))
    }
    show("Future created; closure has run \(futureRuns) time(s), before any subscriber")

    say("Every subscriber gets the same stored result; the closure does not run again.")
    let first = future.sink { show("first subscriber got \($0)") }
    let second = future.sink { show("second subscriber got \($0)") }
    show("closure has run \(futureRuns) time(s)")

    say(
      "Deferred waits for a subscriber, then calls its closure to make a fresh publisher for",
      "that subscriber alone: nothing runs at creation, and it runs again for each subscriber.")
    var deferredRuns = 0
    let deferred = Deferred { () -> Just<Int> in
      deferredRuns += 1
      show("Deferred closure runs (run #\(deferredRuns))")
      return Just(deferredRuns * 10)
    }
    show("Deferred created; closure has run \(deferredRuns) time(s)")
    let third = deferred.sink { show("first subscriber got \($0)") }
    let fourth = deferred.sink { show("second subscriber got \($0)") }
    show("closure has run \(deferredRuns) time(s)")

    say("Wrap a Future in Deferred to make it lazy and repeatable: the work starts per subscriber.")
    var lazyRuns = 0
    let lazy = Deferred {
      Future<Int, Never> { promise in
        lazyRuns += 1
        promise(.success(lazyRuns))
      }
    }
    show("Deferred { Future } created; work has run \(lazyRuns) time(s)")
    let fifth = lazy.sink { show("subscriber got \($0)") }
    show("work has run \(lazyRuns) time(s)")

    for token in [first, second, third, fourth, fifth] { token.cancel() }
  }
}

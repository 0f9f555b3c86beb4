import Conduit
import ConduitTesting
import Dispatch

/// Why a request gave up.
private enum RequestError: Error {
  case timedOut
}

/// How the fake server answers one attempt.
private enum Reply {
  case never
  case after(milliseconds: Int)
}

/// A clock reading for the timeline: `t=…ms` since the scheduler was made, padded to line up.
private struct VirtualClock {
  let scheduler: TestSchedulerOf<DispatchQueue>
  let start: DispatchQueue.SchedulerTimeType

  init(_ scheduler: TestSchedulerOf<DispatchQueue>) {
    self.scheduler = scheduler
    start = scheduler.now
  }

  var stamp: String {
    let text = "t=\(start.distance(to: scheduler.now).magnitude / 1_000_000)ms"
    return text + String(repeating: " ", count: max(0, 9 - text.count))
  }
}

/// A profile request to a flaky server that answers attempt n as `replies[n - 1]` says. Deferred
/// runs its closure on every subscription, so each subscription `retry` makes is a new attempt.
private func profileRequest(replies: [Reply], clock: VirtualClock) -> some Publisher<String, RequestError> {
  var attempts = 0
  return Deferred { () -> AnyPublisher<String, RequestError> in
    attempts += 1
    let attempt = attempts
    let answer: AnyPublisher<String, RequestError>
    switch replies[min(attempt, replies.count) - 1] {
    case .never:
      show("\(clock.stamp)  attempt #\(attempt) sent; the server will never answer it")
      answer = Empty(completeImmediately: false).eraseToAnyPublisher()
    case .after(let milliseconds):
      show("\(clock.stamp)  attempt #\(attempt) sent; the server answers it in \(milliseconds)ms")
      answer = Just("profile from attempt #\(attempt)")
        .delay(for: .milliseconds(milliseconds), scheduler: clock.scheduler)
        .setFailureType(to: RequestError.self)
        .eraseToAnyPublisher()
    }
    // Shows that timeout stops the attempt it gave up on, so a late answer never arrives.
    return answer.handleEvents(receiveCancel: { show("\(clock.stamp)  attempt #\(attempt) cancelled") })
      .eraseToAnyPublisher()
  }
}

/// Each attempt gets 500ms; two more attempts follow a timeout; after the last one the cached
/// profile stands in.
private func patientProfile(replies: [Reply], clock: VirtualClock) -> some Publisher<String, Never> {
  profileRequest(replies: replies, clock: clock)
    .timeout(
      .milliseconds(500), scheduler: clock.scheduler,
      customError: {
        show("\(clock.stamp)  no answer in 500ms: timeout fails with .timedOut")
        return .timedOut
      }
    )
    .retry(2)
    .replaceError(with: "cached profile")
}

extension Page {
  static let timeouts = Page(name: "timeout", title: "giving up on a silent server, retrying, then falling back") {
    say(
      "A request to a server that never answers never fails either: the pipeline just waits.",
      "timeout turns the silence into a failure: when 500ms pass without a value, it cancels the",
      "upstream and fails with the error customError returns. Then retry has a failure to catch,",
      "and subscribes again, a fresh attempt; replaceError turns the last failure into a",
      "fallback value.")
    say(
      "The order matters. timeout sits before retry, so each attempt gets its own 500ms; after",
      "retry, it would limit all the attempts together. replaceError comes last, so that retry",
      "sees the failures.")
    say(
      "The first attempt is never answered, the second is answered too late (after 800ms), the",
      "third in time. The clock is a DispatchQueue.test, which moves only when the page says so:")
    let scheduler = DispatchQueue.test
    let clock = VirtualClock(scheduler)
    let recovered = patientProfile(
      replies: [.never, .after(milliseconds: 800), .after(milliseconds: 200)], clock: clock
    )
    .sink(
      receiveCompletion: { show("\(clock.stamp)  \($0)") },
      receiveValue: { show("\(clock.stamp)  got \"\($0)\"") })
    scheduler.advance(by: .seconds(5))

    say(
      "Attempt #2's answer was due at 1300ms; timeout had cancelled that attempt at 1000ms, so",
      "the answer never came.")
    say(
      "When no attempt is answered, three timeouts use up the two retries, and replaceError sends",
      "the cached profile at 1500ms, then finishes normally:")
    let offlineScheduler = DispatchQueue.test
    let offlineClock = VirtualClock(offlineScheduler)
    let fallback = patientProfile(replies: [.never], clock: offlineClock)
      .sink(
        receiveCompletion: { show("\(offlineClock.stamp)  \($0)") },
        receiveValue: { show("\(offlineClock.stamp)  got \"\($0)\"") })
    offlineScheduler.advance(by: .seconds(5))

    say("Both pipelines have finished, so nothing is left scheduled:")
    show("pending actions: \(scheduler.pendingActionCount) and \(offlineScheduler.pendingActionCount)")
    recovered.cancel()
    fallback.cancel()
  }
}

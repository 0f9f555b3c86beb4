import Conduit
import ConduitTesting
import Testing

/// What both subjects, PassthroughSubject and CurrentValueSubject, do with the subscriptions
/// they are sent and the ones they hand their subscribers, as Combine's do.
@Suite(.leakChecked)
struct SubjectSubscriptionTests {

  /// A subscription sent to a subject again is asked for `.unlimited` again; the subscribers'
  /// own requests are never passed on.
  /// Evidence (OpenCombine): PassthroughSubjectTests.swift and CurrentValueSubjectTests.swift
  /// `testSendSubscription` (`[.requested(.unlimited), .requested(.unlimited)]` for the same
  /// subscription sent twice, `[.requested(.unlimited)]` for a later one).
  @Test func subjectsAskASubscriptionSentAgainForUnlimitedAgain() {
    let passthrough = PassthroughSubject<Int, Never>()
    let current = CurrentValueSubject<Int, Never>(1)
    let passthroughUpstream = SpySubscription()
    let currentUpstream = SpySubscription()
    passthrough.send(subscription: passthroughUpstream)
    current.send(subscription: currentUpstream)
    #expect(passthroughUpstream.events == [])
    #expect(currentUpstream.events == [.requested(.unlimited)])

    let subscribers = [1, 2, 1, 2].map { TestSubscriber<Int, Never>(initialDemand: .max($0)) }
    passthrough.subscribe(subscribers[0])
    passthrough.subscribe(subscribers[1])
    current.subscribe(subscribers[2])
    current.subscribe(subscribers[3])
    #expect(passthroughUpstream.events == [.requested(.unlimited)])
    #expect(currentUpstream.events == [.requested(.unlimited)])

    passthrough.send(subscription: passthroughUpstream)
    current.send(subscription: currentUpstream)
    #expect(passthroughUpstream.events == [.requested(.unlimited), .requested(.unlimited)])
    #expect(currentUpstream.events == [.requested(.unlimited), .requested(.unlimited)])

    let later = SpySubscription()
    passthrough.send(subscription: later)
    #expect(later.events == [.requested(.unlimited)])
    for subscriber in subscribers { subscriber.cancel() }
  }

  /// A subject going away cancels every subscription it was sent, once per time it was sent.
  /// Evidence (OpenCombine): PassthroughSubjectTests.swift `testCancelsUpstreamSubscriptionsOnDeinit` (five
  /// `.cancelled`, no request) and CurrentValueSubjectTests.swift of the same name (five
  /// `.requested(.unlimited)`, then five `.cancelled`).
  @Test func subjectsCancelEachSentSubscriptionWhenTheyGoAway() {
    let passthroughUpstream = SpySubscription()
    let currentUpstream = SpySubscription()
    do {
      let passthrough = PassthroughSubject<Int, Never>()
      let current = CurrentValueSubject<Int, Never>(42)
      for _ in 0..<5 {
        passthrough.send(subscription: passthroughUpstream)
        current.send(subscription: currentUpstream)
      }
      #expect(passthroughUpstream.events == [])
      #expect(currentUpstream.events == Array(repeating: .requested(.unlimited), count: 5))
    }
    #expect(passthroughUpstream.events == Array(repeating: .cancelled, count: 5))
    #expect(
      currentUpstream.events
        == Array(repeating: .requested(.unlimited), count: 5) + Array(repeating: .cancelled, count: 5))
  }

  /// A subject's subscribers are handed a subscription named after the subject; a subscriber
  /// that comes after the completion is handed the empty subscription.
  /// Evidence (OpenCombine): PassthroughSubjectTests.swift `testSendFailureCompletion`
  /// (`.subscription("PassthroughSubject")`) and `testSubscriptionAfterCompletion`
  /// (`.subscription("Empty")`); CurrentValueSubjectTests.swift `testSendFailureCompletion`
  /// (`.subscription("CurrentValueSubject")`) and `testSubscriptionAfterCompletion`.
  @Test func subjectSubscriptionsAreNamedAsInCombine() {
    let passthrough = PassthroughSubject<Int, ParityFailure>()
    let current = CurrentValueSubject<Int, ParityFailure>(0)
    let early = [TestSubscriber<Int, ParityFailure>(), TestSubscriber<Int, ParityFailure>()]
    passthrough.subscribe(early[0])
    current.subscribe(early[1])
    #expect(early.map { subscriptionDescription($0.subscription) } == ["PassthroughSubject", "CurrentValueSubject"])

    passthrough.send(completion: .failure(.oops))
    current.send(completion: .finished)
    #expect(early[0].events == [.subscription, .completion(.failure(.oops))])
    #expect(early[1].events == [.subscription, .value(0), .completion(.finished)])

    let late = [CancellingSubscriber<Int, ParityFailure>(cancels: false), CancellingSubscriber(cancels: false)]
    passthrough.subscribe(late[0])
    current.subscribe(late[1])
    #expect(late[0].calls == ["subscription Empty", "failure"])
    #expect(late[1].calls == ["subscription Empty", "finished"])
  }

  /// After the completion, or after a cancel, requests and cancels on a subject's subscription
  /// change nothing, and a second completion is not delivered.
  /// Evidence (OpenCombine): PassthroughSubjectTests.swift and CurrentValueSubjectTests.swift `testCompletion`
  /// and `testCancellation`.
  @Test func subjectSubscriptionIgnoresRequestsAndCancelsOnceEnded() throws {
    let completed = PassthroughSubject<Int, ParityFailure>()
    let finishedSubscriber = TestSubscriber<Int, ParityFailure>(initialDemand: .none)
    completed.subscribe(finishedSubscriber)
    finishedSubscriber.request(.max(12))
    completed.send(1)
    let finishedSubscription = try #require(finishedSubscriber.subscription)
    completed.send(completion: .finished)
    completed.send(completion: .failure(.oops))
    finishedSubscription.cancel()
    finishedSubscription.request(.max(3))
    #expect(finishedSubscriber.events == [.subscription, .value(1), .completion(.finished)])

    let current = CurrentValueSubject<Int, ParityFailure>(42)
    let cancelledSubscriber = TestSubscriber<Int, ParityFailure>(initialDemand: .none)
    current.subscribe(cancelledSubscriber)
    let cancelledSubscription = try #require(cancelledSubscriber.subscription)
    cancelledSubscription.request(.max(12))
    current.send(1)
    cancelledSubscription.cancel()
    cancelledSubscription.cancel()
    cancelledSubscription.request(.max(3))
    current.send(2)
    #expect(cancelledSubscriber.events == [.subscription, .value(42), .value(1)])
  }

  /// A subscriber that completes the subject again from inside `receive(completion:)` gets one
  /// completion.
  /// Evidence (OpenCombine): PassthroughSubjectTests.swift and CurrentValueSubjectTests.swift
  /// `testMultipleCompletions` ("must not recurse"; one completion).
  @Test func completingTheSubjectFromInsideItsCompletionDoesNotRecurse() {
    let passthrough = PassthroughSubject<Int, ParityFailure>()
    let current = CurrentValueSubject<Int, ParityFailure>(112)
    var completions: [Subscribers.Completion<ParityFailure>] = []
    passthrough.subscribe(
      AnySubscriber(
        receiveSubscription: { $0.request(.unlimited) },
        receiveCompletion: {
          passthrough.send(completion: .failure(.oops))
          completions.append($0)
        }))
    current.subscribe(
      AnySubscriber(
        receiveSubscription: { $0.request(.unlimited) },
        receiveCompletion: {
          current.send(completion: .failure(.oops))
          completions.append($0)
        }))

    passthrough.send(completion: .finished)
    current.send(completion: .finished)
    passthrough.send(completion: .finished)
    current.send(completion: .failure(.oops))
    #expect(completions == [.finished, .finished])
  }
}

import Conduit
import ConduitTesting
import Testing

@Suite(.leakChecked)
struct IgnoreOutputTests {
  @Test func dropsEveryValueAndFinishesWithoutDemand() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let ignore: Publishers.IgnoreOutput<HandDrivenUpstream<Int, Never>> = upstream.ignoreOutput()
    let subscriber = TestSubscriber<Never, Never>(initialDemand: .none)
    ignore.subscribe(subscriber)
    #expect(upstream.requests == [.unlimited])

    #expect(upstream.send(1) == .none)
    #expect(upstream.send(2) == .none)
    upstream.send(completion: .finished)

    #expect(subscriber.events.count == 2)
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func aFailurePassesThroughWithoutDemand() {
    let subject = PassthroughSubject<String, ReducingError>()
    let subscriber = TestSubscriber<Never, ReducingError>(initialDemand: .none)
    subject.ignoreOutput().subscribe(subscriber)

    subject.send("a")
    subject.send(completion: .failure(.upstream))

    #expect(subscriber.completion == .failure(.upstream))
    #expect(subscriber.events.count == 2)
  }

  @Test func cancelCancelsUpstreamAndSilences() {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Never, Never>()
    subject.ignoreOutput().subscribe(subscriber)

    subscriber.cancel()
    subject.send(1)
    subject.send(completion: .finished)

    #expect(subscriber.events.count == 1)
    #expect(subscriber.completion == nil)
  }

  // As in Combine (IgnoreOutputTests.testDemand, testSendsSubscriptionDownstreamBeforeDemandUpstream,
  // testCompletionWithValues): the subscriber gets upstream's own subscription, so its requests
  // and cancels go straight to upstream, which is then asked for everything.
  @Test func handsUpstreamsSubscriptionDownstreamThenAsksForEverything() {
    let upstream = HandDrivenUpstream<Int, ParityError>(name: "RecordingUpstream", conduct: .careless)
    let recorder = RecordingSubscriber<Never, ParityError>(initialDemand: .max(42), demandPerValue: .max(1))
    var eventsWhenSubscribed: [SubscriptionEvent]?
    recorder.onSubscription = { _ in eventsWhenSubscribed = upstream.events }
    upstream.ignoreOutput().subscribe(recorder)

    #expect(upstream.subscriberDescription == "IgnoreOutput")
    #expect(eventsWhenSubscribed == [])
    #expect(upstream.events == [.requested(.max(42)), .requested(.unlimited)])
    #expect(recorder.history == ["subscription(RecordingUpstream)"])

    #expect(upstream.send(666) == .none)
    recorder.subscription?.request(.max(95))
    recorder.subscription?.request(.max(5))
    recorder.subscription?.cancel()
    recorder.subscription?.cancel()
    recorder.subscription?.request(.max(50))
    #expect(
      upstream.events == [
        .requested(.max(42)), .requested(.unlimited), .requested(.max(95)), .requested(.max(5)), .cancelled,
        .cancelled, .requested(.max(50)),
      ])
    #expect(recorder.history == ["subscription(RecordingUpstream)"])
    recorder.forget()
    upstream.detach()
  }

  // As in Combine (IgnoreOutputTests.testReceiveSubscriptionTwice): like upstream's first
  // subscription, a further one goes downstream and is asked for everything.
  @Test func aSecondSubscriptionGoesDownstreamAndIsAskedForEverything() {
    let upstream = HandDrivenUpstream<Int, ParityError>(name: "RecordingUpstream", conduct: .careless)
    let recorder = RecordingSubscriber<Never, ParityError>()
    upstream.ignoreOutput().subscribe(recorder)
    let second = SpySubscription(name: "RecordingSubscription")

    upstream.sendSubscription(second)

    #expect(second.events == [.requested(.unlimited)])
    #expect(recorder.history == ["subscription(RecordingUpstream)", "subscription(RecordingSubscription)"])
    recorder.forget()
    upstream.detach()
  }

  // As in Combine (IgnoreOutputTests.testIgnoreOutputReceiveCompletionBeforeSubscription and
  // testCompletionWithEmpty): every completion upstream sends passes on, one before the
  // subscription too.
  @Test func passesOnEveryCompletionUpstreamSends() {
    let early = HandDrivenUpstream<Int, ParityError>(
      conduct: .careless, sendsSubscription: false)
    let earlyRecorder = RecordingSubscriber<Never, ParityError>()
    early.ignoreOutput().subscribe(earlyRecorder)
    early.send(completion: .finished)
    #expect(earlyRecorder.history == ["finished"])
    early.detach()

    let upstream = HandDrivenUpstream<Int, ParityError>(name: "RecordingUpstream", conduct: .careless)
    let recorder = RecordingSubscriber<Never, ParityError>(initialDemand: .max(42))
    upstream.ignoreOutput().subscribe(recorder)
    upstream.send(completion: .failure(ParityError()))
    upstream.send(completion: .finished)
    #expect(
      recorder.history == ["subscription(RecordingUpstream)", "failure(ParityError())", "finished"])
    recorder.forget()
    upstream.detach()
  }

  // IgnoreOutputTests.testIgnoreOutputReflection.
  @Test func describesItselfAsCombineDoes() throws {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless, sendsSubscription: false)
    upstream.ignoreOutput().subscribe(TestSubscriber<Never, Never>())
    let inner = try #require(upstream.subscriberObject)

    #expect(String(describing: inner) == "IgnoreOutput")
    #expect((inner as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "IgnoreOutput")
    let mirror = try #require((inner as? any CustomReflectable)?.customMirror)
    #expect(mirror.children.isEmpty)
    #expect(!(inner is any CustomDebugStringConvertible))
    #expect(!(inner is any Subscription))
  }

  @Test func worksWithASink() {
    let subject = PassthroughSubject<Int, Never>()
    var finished = false
    let token = subject.ignoreOutput().sink(receiveCompletion: { _ in finished = true }, receiveValue: { _ in })

    subject.send(1)
    #expect(!finished)
    subject.send(completion: .finished)

    #expect(finished)
    token.cancel()
  }

  @Test func isEquatableWhenItsUpstreamIs() {
    #expect(Publishers.IgnoreOutput(upstream: Just(1)) == Publishers.IgnoreOutput(upstream: Just(1)))
    #expect(Publishers.IgnoreOutput(upstream: Just(1)) != Publishers.IgnoreOutput(upstream: Just(2)))
  }
}

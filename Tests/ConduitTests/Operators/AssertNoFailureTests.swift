import ConduitTesting
import Testing

@testable import Conduit

private struct AssertNoFailureTestError: Error, Equatable, CustomStringConvertible {
  var description: String { "disk on fire" }
}

@Suite(.leakChecked)
struct AssertNoFailureTests {
  @Test func republishesValuesAndFinished() {
    let subject = PassthroughSubject<Int, AssertNoFailureTestError>()
    let subscriber = TestSubscriber<Int, Never>()
    subject.assertNoFailure().subscribe(subscriber)
    subject.send(1)
    subject.send(2)
    subject.send(completion: .finished)
    #expect(subscriber.events == [.subscription, .value(1), .value(2), .completion(.finished)])
  }

  @Test func passesDemandThrough() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    [1, 2, 3].publisher.setFailureType(to: AssertNoFailureTestError.self).eraseToAnyPublisher()
      .assertNoFailure()
      .subscribe(subscriber)
    #expect(subscriber.values == [1])
    subscriber.request(.max(2))
    #expect(subscriber.values == [1, 2, 3])
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func cancelStopsValues() {
    let subject = PassthroughSubject<Int, AssertNoFailureTestError>()
    let subscriber = TestSubscriber<Int, Never>()
    subject.assertNoFailure().subscribe(subscriber)
    subject.send(1)
    subscriber.cancel()
    subject.send(2)
    subject.send(completion: .failure(AssertNoFailureTestError()))
    #expect(subscriber.events == [.subscription, .value(1)])
  }

  @Test func recordsPrefixFileAndLine() {
    let subject = PassthroughSubject<Int, AssertNoFailureTestError>()
    let line: UInt = #line + 1
    let publisher = subject.assertNoFailure("settings")
    #expect(publisher.prefix == "settings")
    #expect(publisher.line == line)
    #expect("\(publisher.file)".hasSuffix("AssertNoFailureTests.swift"))
    let explicit = subject.assertNoFailure("p", file: "Here.swift", line: 42)
    #expect("\(explicit.file)" == "Here.swift")
    #expect(explicit.line == 42)
  }

  @Test func messageNamesThePrefixAndTheFailure() {
    #expect(assertNoFailureMessage(prefix: "settings", failure: AssertNoFailureTestError()) == "settings: disk on fire")
    #expect(assertNoFailureMessage(prefix: "", failure: AssertNoFailureTestError()) == "disk on fire")
  }

  @Test func failureStopsTheProcessWithTheMessage() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let subject = PassthroughSubject<Int, AssertNoFailureTestError>()
      let token = subject.assertNoFailure("settings stream", file: "Settings.swift", line: 12).sink { _ in }
      subject.send(completion: .failure(AssertNoFailureTestError()))
      token.cancel()
    }
    let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(output.contains("settings stream: disk on fire"))
    #expect(output.contains("Settings.swift:12"))
  }

  @Test func itsSubscriberIsDescribedAndReflectedAsInCombine() {
    expectPassThroughSubscriber(
      named: "AssertNoFailure", mirrorLabels: ["file", "line", "prefix"],
      mirrorValues: ["SomeFile.swift", "1987", "PREFIX"]
    ) { $0.assertNoFailure("PREFIX", file: "SomeFile.swift", line: 1987) }
  }

  /// assertNoFailure forwards everything, a second finish and a second subscription included;
  /// the subscriber's requests and cancels go to the subscription it was given.
  /// Evidence (OpenCombine): AssertNoFailureTests.swift `testPassThroughInput` (history ends with
  /// `.completion(.finished), .completion(.finished), .subscription, .subscription`;
  /// `subscription2.history == [.requested(.max(42)), .cancelled, .cancelled]`),
  /// `testAssertNoFailureReflection` (description "AssertNoFailure").
  @Test func assertNoFailurePassesEverythingThrough() {
    let upstream = HandDrivenUpstream<Int, ParityFailure>(name: "RecordingUpstream", conduct: .careless)
    let recorder = RecordingSubscriber<Int, Never>(initialDemand: .none, demandPerValue: .max(2))
    upstream.assertNoFailure().subscribe(recorder)
    #expect(upstream.subscriberDescription == "AssertNoFailure")
    #expect(upstream.send(1) == .max(2))
    upstream.send(completion: .finished)
    upstream.send(completion: .finished)
    let second = SpySubscription(name: "RecordingSubscription")
    upstream.sendSubscription(second)
    recorder.subscription?.request(.max(42))
    recorder.subscription?.cancel()
    recorder.subscription?.cancel()
    #expect(
      recorder.history == [
        "subscription(RecordingUpstream)", "value(1)", "finished", "finished", "subscription(RecordingSubscription)",
      ])
    #expect(upstream.events.isEmpty)
    #expect(second.events == [.requested(.max(42)), .cancelled, .cancelled])
    release(upstream, recorder)
  }
}

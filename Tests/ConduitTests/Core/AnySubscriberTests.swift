import ConduitTesting
import Dispatch
import Synchronization
import Testing

@testable import Conduit

private enum AnySubscriberTestError: Error, Equatable {
  case failed
}

@Suite(.leakChecked)
struct AnySubscriberTests {
  // MARK: Wrapping a subscriber

  @Test func forwardsEverythingToAWrappedSubscriber() {
    let recorder = TestSubscriber<Int, AnySubscriberTestError>(initialDemand: .max(2), demandPerValue: .max(1))
    let erased = AnySubscriber(recorder)
    erased.receive(subscription: Subscriptions.empty)
    #expect(erased.receive(1) == .max(1))
    #expect(erased.receive(2) == .max(1))
    erased.receive(completion: .failure(.failed))
    #expect(recorder.events == [.subscription, .value(1), .value(2), .completion(.failure(.failed))])
    #expect(recorder.violations.isEmpty)
  }

  @Test func wrappedSubscriberThroughAPublisher() {
    let recorder = TestSubscriber<Int, Never>(initialDemand: .max(1))
    [1, 2, 3].publisher.subscribe(AnySubscriber(recorder))
    #expect(recorder.values == [1])
    recorder.request(.max(2))
    #expect(recorder.values == [1, 2, 3])
    #expect(recorder.completion == .finished)
    #expect(recorder.violations.isEmpty)
  }

  @Test func preservesTheCombineIdentifier() {
    let recorder = TestSubscriber<Int, Never>()
    let erased = AnySubscriber(recorder)
    #expect(erased.combineIdentifier == recorder.combineIdentifier)
    #expect(erased.combineIdentifier == CombineIdentifier(recorder))
  }

  @Test func erasingTwiceKeepsTheIdentifier() {
    let recorder = TestSubscriber<Int, Never>()
    let once = AnySubscriber(recorder)
    let twice = AnySubscriber(once)
    #expect(twice.combineIdentifier == recorder.combineIdentifier)
    twice.receive(subscription: Subscriptions.empty)
    _ = twice.receive(4)
    #expect(recorder.values == [4])
  }

  @Test func describesTheWrappedSubscriber() {
    let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
    #expect(AnySubscriber(sink).description == "Sink")
    let recorder = TestSubscriber<Int, Never>()
    #expect(AnySubscriber(recorder).description.contains("TestSubscriber"))
  }

  // MARK: Wrapping a subject

  @Test func forwardsToASubject() {
    let subject = PassthroughSubject<Int, AnySubscriberTestError>()
    let recorder = TestSubscriber<Int, AnySubscriberTestError>()
    subject.subscribe(recorder)
    let erased = AnySubscriber(subject)
    erased.receive(subscription: Subscriptions.empty)
    #expect(erased.receive(1) == .none)
    #expect(erased.receive(2) == .none)
    erased.receive(completion: .failure(.failed))
    #expect(recorder.values == [1, 2])
    #expect(recorder.completion == .failure(.failed))
  }

  @Test func subjectRequestsUnlimitedFromUpstream() {
    let subject = PassthroughSubject<Int, Never>()
    let recorder = TestSubscriber<Int, Never>()
    subject.subscribe(recorder)
    [1, 2, 3].publisher.subscribe(AnySubscriber(subject))
    #expect(recorder.values == [1, 2, 3])
    #expect(recorder.completion == .finished)
    #expect(recorder.violations.isEmpty)
  }

  @Test func subjectIdentifierIsTheSubjects() {
    let subject = PassthroughSubject<Int, Never>()
    #expect(AnySubscriber(subject).combineIdentifier == CombineIdentifier(subject))
    #expect(AnySubscriber(subject).combineIdentifier == AnySubscriber(subject).combineIdentifier)
    #expect(
      AnySubscriber(subject).combineIdentifier != AnySubscriber(PassthroughSubject<Int, Never>()).combineIdentifier)
  }

  // MARK: Closures

  @Test func callsTheClosures() {
    var events: [String] = []
    let erased = AnySubscriber<Int, AnySubscriberTestError>(
      receiveSubscription: { _ in events.append("subscription") },
      receiveValue: { value in
        events.append("value \(value)")
        return .max(value)
      },
      receiveCompletion: { completion in events.append(completion == .finished ? "finished" : "failed") })
    erased.receive(subscription: Subscriptions.empty)
    #expect(erased.receive(3) == .max(3))
    erased.receive(completion: .finished)
    erased.receive(completion: .failure(.failed))
    #expect(events == ["subscription", "value 3", "finished", "failed"])
  }

  @Test func closuresDriveARealSubscription() {
    var subscription: (any Subscription)?
    var values: [Int] = []
    var completion: Subscribers.Completion<Never>?
    [1, 2, 3].publisher.subscribe(
      AnySubscriber(
        receiveSubscription: { received in
          subscription = received
          received.request(.max(1))
        },
        receiveValue: { value in
          values.append(value)
          return value == 1 ? .max(1) : .none
        },
        receiveCompletion: { completion = $0 }))
    #expect(values == [1, 2])
    #expect(completion == nil)
    subscription?.request(.max(1))
    #expect(values == [1, 2, 3])
    #expect(completion == .finished)
    subscription = nil
  }

  @Test func missingClosuresDoNothingAndDemandNothing() {
    let erased = AnySubscriber<Int, Never>()
    erased.receive(subscription: Subscriptions.empty)
    #expect(erased.receive(1) == .none)
    erased.receive(completion: .finished)
  }

  @Test func closureSubscribersGetFreshIdentifiers() {
    let first = AnySubscriber<Int, Never>()
    let second = AnySubscriber<Int, Never>()
    #expect(first.combineIdentifier != second.combineIdentifier)
    #expect(AnySubscriber(first).combineIdentifier == first.combineIdentifier)
  }

  @Test func closureSubscriberDescription() {
    #expect(AnySubscriber<Int, Never>().description == "Anonymous AnySubscriber")
  }

  // MARK: Reflection, as Combine reflects an erased subscriber

  @Test func closureSubscriberReflectsItsDescription() {
    let erased = AnySubscriber<Int, Never>()
    #expect(erased.playgroundDescription as? String == "Anonymous AnySubscriber")
    let mirror = erased.customMirror
    #expect(ObjectIdentifier(mirror.subjectType) == ObjectIdentifier(String.self))
    #expect(mirror.children.isEmpty)
  }

  @Test func wrappedSubscriberLendsItsMirrorAndPlaygroundDescription() {
    let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
    let erased = AnySubscriber(sink)
    #expect(ObjectIdentifier(erased.customMirror.subjectType) == ObjectIdentifier(Subscribers.Sink<Int, Never>.self))
    #expect(erased.playgroundDescription as? String == "Sink")
    let recorder = TestSubscriber<Int, Never>()
    let recorderMirror = AnySubscriber(recorder).customMirror
    #expect(ObjectIdentifier(recorderMirror.subjectType) == ObjectIdentifier(TestSubscriber<Int, Never>.self))
    #expect(AnySubscriber(recorder).playgroundDescription as? String == AnySubscriber(recorder).description)
  }

  @Test func wrappedSubjectReflectsTheRelayThatFeedsIt() {
    let subject = PassthroughSubject<Int, Never>()
    let erased = AnySubscriber(subject)
    let mirror = erased.customMirror
    #expect(String(describing: mirror.subjectType) == "SubjectSubscriber<PassthroughSubject<Int, Never>>")
    #expect(!mirror.children.isEmpty)
    #expect(erased.playgroundDescription as? String == "Subject")
  }

  @Test func publisherReleasesClosuresWhenFinished() {
    weak var weakProbe: CapturedProbe?
    var subscription: (any Subscription)?
    do {
      let probe = CapturedProbe()
      weakProbe = probe
      [1, 2].publisher.subscribe(
        AnySubscriber(
          receiveSubscription: { subscription = $0 },
          receiveValue: { _ in
            _ = probe
            return .none
          }))
    }
    #expect(weakProbe != nil)
    subscription?.request(.unlimited)
    #expect(weakProbe == nil)
    subscription = nil
  }

  /// A subscriber erased once or twice gets exactly what it is sent, whatever the order:
  /// several subscriptions, values after a completion, several completions.
  /// Evidence (OpenCombine): AnySubscriberTests.swift `testErasingSubscriber` (the history equals the events
  /// published).
  @Test func erasedSubscriberForwardsEveryCallAsItComes() {
    let subscriber = CallLog()
    let erased = AnySubscriber(AnySubscriber(subscriber))
    erased.receive(subscription: Subscriptions.empty)
    erased.receive(subscription: Subscriptions.empty)
    #expect(erased.receive(31) == .max(1))
    erased.receive(completion: .finished)
    #expect(erased.receive(42) == .max(1))
    erased.receive(completion: .failure(.oops))
    #expect(subscriber.calls == ["subscription", "subscription", "31", "finished", "42", "failure"])
  }

  /// A subject erased to a subscriber gets the first subscription only, and values and the
  /// completion up to the first completion; a value answers `.none`. It describes itself as
  /// "Subject".
  /// Evidence (OpenCombine): AnySubscriberTests.swift `testErasingSubject` (one `.subscription`, then the
  /// events `throughFirstCompletion()`; `erased.receive(0) == .none`) and `testDescription`
  /// (`"Subject"`).
  @Test func erasedSubjectGetsOneSubscriptionAndNothingAfterTheCompletion() {
    let subject = RecordingSubject()
    let erased = AnySubscriber(subject)
    #expect(erased.description == "Subject")
    let upstreams = [SpySubscription(), SpySubscription(), SpySubscription()]
    for upstream in upstreams { erased.receive(subscription: upstream) }
    #expect(erased.receive(31) == .none)
    #expect(erased.receive(42) == .none)
    erased.receive(completion: .finished)
    #expect(erased.receive(-1) == .none)
    erased.receive(completion: .finished)
    erased.receive(completion: .failure(.oops))
    #expect(subject.calls == ["subscription", "31", "42", "finished"])
  }

  /// The relay passes the first subscription, values and the completion; it cancels a second
  /// subscription and lets go of everything once the upstream completes.
  @Test func anySubscriberOfASubjectRelaysOnceAndLetsGo() throws {
    try withLeakCheck { _ in
      let first = PassthroughSubject<Int, Never>()
      let second = HandDrivenUpstream<Int, Never>()
      let target = PassthroughSubject<Int, Never>()
      let received = TestSubscriber<Int, Never>()
      target.subscribe(received)
      let relay = AnySubscriber(target)
      first.subscribe(relay)
      second.subscribe(relay)
      #expect(second.cancelCount == 1)
      first.send(1)
      first.send(completion: .finished)
      _ = relay.receive(2)
      #expect(received.values == [1])
      #expect(received.completion == .finished)
      #expect(received.violations.isEmpty)
    }
  }
}

/// Records every call, and answers each value with `.max(1)`.
private final class CallLog: Subscriber {
  typealias Input = Int
  typealias Failure = ParityFailure
  private(set) var calls: [String] = []

  func receive(subscription: any Subscription) { calls.append("subscription") }

  func receive(_ input: Int) -> Subscribers.Demand {
    calls.append("\(input)")
    return .max(1)
  }

  func receive(completion: Subscribers.Completion<ParityFailure>) {
    calls.append(completion.isFinished ? "finished" : "failure")
  }
}

/// A subject that records what it is sent.
private final class RecordingSubject: Subject, @unchecked Sendable {
  typealias Output = Int
  typealias Failure = ParityFailure
  private(set) var calls: [String] = []

  func send(_ value: Int) { calls.append("\(value)") }

  func send(completion: Subscribers.Completion<ParityFailure>) {
    calls.append(completion.isFinished ? "finished" : "failure")
  }

  func send(subscription: any Subscription) { calls.append("subscription") }

  func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == ParityFailure {}
}

import Conduit
import ConduitTesting
import Testing

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
}

import Conduit
import ConduitTesting
import Testing

private struct BreakpointTestError: Error, Equatable {}

// A closure returning true raises SIGTRAP, which would stop the test process: these tests only
// take the false path, and check that each closure is asked at its moment.
@Suite(.leakChecked)
struct BreakpointTests {
  @Test func asksEveryClosureAndPassesEverythingThrough() {
    var asked: [String] = []
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream
      .breakpoint(
        receiveSubscription: { subscription in
          asked.append("subscription \(subscription)")
          return false
        },
        receiveOutput: { value in
          asked.append("value \(value)")
          return false
        },
        receiveCompletion: { completion in
          asked.append("completion \(completion)")
          return false
        }
      )
      .subscribe(subscriber)
    upstream.send(1)
    upstream.send(2)
    upstream.send(completion: .finished)
    #expect(asked == ["subscription HandDriven", "value 1", "value 2", "completion finished"])
    #expect(subscriber.events == [.subscription, .value(1), .value(2), .completion(.finished)])
  }

  @Test func asksBeforeTheSubscriberReceives() {
    var order: [String] = []
    let subject = PassthroughSubject<Int, Never>()
    let cancellable =
      subject
      .breakpoint(receiveOutput: { value in
        order.append("breakpoint \(value)")
        return false
      })
      .sink { order.append("sink \($0)") }
    subject.send(1)
    #expect(order == ["breakpoint 1", "sink 1"])
    cancellable.cancel()
  }

  @Test func withoutClosuresItPassesEverythingThrough() {
    let upstream = HandDrivenUpstream<Int, BreakpointTestError>()
    let subscriber = TestSubscriber<Int, BreakpointTestError>()
    upstream.breakpoint().subscribe(subscriber)
    upstream.send(1)
    upstream.send(completion: .failure(BreakpointTestError()))
    #expect(subscriber.events == [.subscription, .value(1), .completion(.failure(BreakpointTestError()))])
  }

  @Test func breakpointOnErrorLetsValuesAndFinishThrough() {
    let subscriber = TestSubscriber<Int, BreakpointTestError>()
    [1, 2].publisher.setFailureType(to: BreakpointTestError.self).breakpointOnError().subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .value(1), .value(2), .completion(.finished)])
  }

  @Test func passesDemandAndCancelStraightUpstream() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(2))
    upstream.breakpoint(receiveOutput: { _ in false }).subscribe(subscriber)
    #expect(upstream.send(1) == .max(2))
    subscriber.request(.max(3))
    #expect(upstream.link?.requests == [.max(1), .max(3)])
    subscriber.cancel()
    #expect(upstream.link?.isCancelled == true)
    upstream.send(2)
    #expect(subscriber.values == [1])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func exposesItsParts() {
    let breakpoint = Publishers.Breakpoint(upstream: Just(1), receiveOutput: { $0 > 5 })
    #expect(breakpoint.upstream == Just(1))
    #expect(breakpoint.receiveOutput?(1) == false)
    #expect(breakpoint.receiveSubscription == nil)
    #expect(breakpoint.receiveCompletion == nil)
  }

  @Test func itsSubscriberIsDescribedAndReflectedAsInCombine() {
    expectPassThroughSubscriber(named: "Breakpoint", mirrorLabels: []) { $0.breakpointOnError() }
  }

  /// breakpoint asks its closures about every event (repeated ones too) and passes everything
  /// through; breakpointOnError stops only for a failure.
  /// Evidence (OpenCombine): BreakpointTests.swift `testReceiveSubscription` (counter 2 after two
  /// subscriptions), `testReceiveValue`, `testBreakpointOnError` (`receiveCompletion?(.finished)
  /// == false`, `receiveCompletion?(.failure(.oops)) == true`), `testCancelAlreadyCancelled`,
  /// `testBreakpointReflection` (description "Breakpoint").
  @Test func breakpointAsksAboutEveryEventAndPassesItOn() {
    var asked: [String] = []
    let upstream = HandDrivenUpstream<Int, ParityFailure>(name: "RecordingUpstream", conduct: .careless)
    let recorder = RecordingSubscriber<Int, ParityFailure>(initialDemand: .none, demandPerValue: .max(1))
    upstream
      .breakpoint(
        receiveSubscription: { _ in
          asked.append("subscription")
          return false
        },
        receiveOutput: { value in
          asked.append("value(\(value))")
          return value < 0
        },
        receiveCompletion: { _ in
          asked.append("completion")
          return false
        }
      )
      .subscribe(recorder)
    #expect(upstream.subscriberDescription == "Breakpoint")
    #expect(upstream.send(12) == .max(1))
    upstream.send(completion: .finished)
    upstream.send(completion: .failure(.oops))
    #expect(upstream.send(21) == .max(1))
    upstream.sendSubscription(SpySubscription(name: "RecordingSubscription"))
    #expect(asked == ["subscription", "value(12)", "completion", "completion", "value(21)", "subscription"])
    #expect(
      recorder.history == [
        "subscription(RecordingUpstream)", "value(12)", "finished", "failure(oops)", "value(21)",
        "subscription(RecordingSubscription)",
      ])
    release(upstream, recorder)

    let onError = HandDrivenUpstream<Int, ParityFailure>(conduct: .careless)
      .breakpointOnError()
    #expect(onError.receiveSubscription == nil)
    #expect(onError.receiveOutput == nil)
    #expect(onError.receiveCompletion?(.finished) == false)
    #expect(onError.receiveCompletion?(.failure(.oops)) == true)

    let plain = HandDrivenUpstream<Int, ParityFailure>(conduct: .careless)
    let plainRecorder = RecordingSubscriber<Int, ParityFailure>(initialDemand: .unlimited, demandPerValue: .none)
    plain.breakpointOnError().subscribe(plainRecorder)
    plainRecorder.subscription?.request(.max(14))
    plainRecorder.subscription?.cancel()
    plainRecorder.subscription?.request(.max(100))
    plainRecorder.subscription?.cancel()
    #expect(
      plain.events == [.requested(.unlimited), .requested(.max(14)), .cancelled, .requested(.max(100)), .cancelled])
    release(plain, plainRecorder)
  }
}

import Conduit
import ConduitTesting
import Testing

/// What the one-shot publishers (Just, Empty, Fail, Optional.Publisher, Result.Publisher) have in
/// common with Combine's: how their subscriptions are named and when they deliver.
@Suite(.leakChecked)
struct OneShotPublisherTests {

  /// The subscriptions of the one-shot publishers are named as Combine's are: a publisher with
  /// nothing to wait for (Empty, Fail, a `nil` optional, a failed result) hands the empty
  /// subscription, and completes even if the subscriber cancels it at once.
  /// Evidence (OpenCombine): JustTests.swift `testJustNoInitialDemand` ("Just"); OptionalPublisherTests.swift
  /// `testSuccessNoInitialDemand` ("Optional") and `testNil` ("Empty"); ResultPublisherTests.swift
  /// `testOnceSuccessNoInitialDemand` ("Once"), `testOnceFailure` and
  /// `testFailureCancelOnSubscription` ("Empty" and the failure); FailTests.swift
  /// `testSubscription` ("Empty"); EmptyTests.swift `testEmpty` and `testImmediatelyCancel`.
  @Test func oneShotPublishersNameTheirSubscriptionsAsInCombine() {
    let just = TestSubscriber<Int, Never>(initialDemand: .none)
    Just(42).subscribe(just)
    let some = TestSubscriber<Int, Never>(initialDemand: .none)
    Optional(42).publisher.subscribe(some)
    let success = TestSubscriber<Int, ParityFailure>(initialDemand: .none)
    Result<Int, ParityFailure>.success(42).publisher.subscribe(success)
    #expect([just.subscription, some.subscription].map(subscriptionDescription) == ["Just", "Optional"])
    #expect(subscriptionDescription(success.subscription) == "Once")
    just.cancel()
    some.cancel()
    success.cancel()

    let none = CancellingSubscriber<Int, Never>()
    Optional<Int>.none.publisher.subscribe(none)
    let failure = CancellingSubscriber<Int, ParityFailure>()
    Result<Int, ParityFailure>.failure(.oops).publisher.subscribe(failure)
    let fail = CancellingSubscriber<Int, ParityFailure>()
    Fail<Int, ParityFailure>(error: .oops).subscribe(fail)
    let empty = CancellingSubscriber<Int, ParityFailure>()
    Empty<Int, ParityFailure>().subscribe(empty)
    let endless = CancellingSubscriber<Int, ParityFailure>()
    Empty<Int, ParityFailure>(completeImmediately: false).subscribe(endless)

    #expect(none.calls == ["subscription Empty", "finished"])
    #expect(failure.calls == ["subscription Empty", "failure"])
    #expect(fail.calls == ["subscription Empty", "failure"])
    #expect(empty.calls == ["subscription Empty", "finished"])
    #expect(endless.calls == ["subscription Empty"])
  }

  /// A request and then a cancel, both from inside `receive(subscription:)`, give the value and
  /// the completion (the request delivers before it returns); a cancel and then a request give
  /// nothing. A request from inside `receive(_:)` delivers nothing more.
  /// Evidence: OptionalPublisherTests.swift and ResultPublisherTests.swift
  /// `testSuccessCancelOnSubscription`; JustTests.swift `testCancelOnSubscription`; the
  /// `testRecursion` tests of all three.
  @Test func oneShotPublishersDeliverFromInsideTheRequest() {
    let optional = ReentrantSubscriber<Int, Never>(onSubscription: {
      $0.request(.max(1)); $0.cancel()
    })
    Optional(42).publisher.subscribe(optional)
    #expect(optional.calls == ["subscription", "42", "finished"])

    let result = ReentrantSubscriber<Int, ParityFailure>(onSubscription: {
      $0.request(.max(1)); $0.cancel()
    })
    Result<Int, ParityFailure>.success(42).publisher.subscribe(result)
    #expect(result.calls == ["subscription", "42", "finished"])

    let cancelledJust = ReentrantSubscriber<Int, Never>(onSubscription: {
      $0.cancel(); $0.request(.max(1))
    })
    Just(42).subscribe(cancelledJust)
    #expect(cancelledJust.calls == ["subscription"])

    let recursive = ReentrantSubscriber<Int, Never>(
      onSubscription: { $0.request(.unlimited) }, onValue: { $0.request(.unlimited) })
    Just(42).subscribe(recursive)
    #expect(recursive.calls == ["subscription", "42", "finished"])
  }
}

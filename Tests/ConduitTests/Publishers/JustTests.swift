import Conduit
import ConduitTesting
import Testing

@Suite(.leakChecked)
struct JustTests {
  @Test func deliversTheValueThenFinishes() {
    let subscriber = TestSubscriber<Int, Never>()
    Just(42).subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .value(42), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func waitsForDemand() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    Just(1).subscribe(subscriber)
    #expect(subscriber.events == [.subscription])
    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .value(1), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func deliversOnceWhateverTheDemand() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    Just(1).subscribe(subscriber)
    subscriber.request(.max(3))
    subscriber.request(.unlimited)
    #expect(subscriber.values == [1])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func everySubscriberGetsTheValue() {
    let just = Just("hello")
    let first = TestSubscriber<String, Never>()
    let second = TestSubscriber<String, Never>()
    just.subscribe(first)
    just.subscribe(second)
    #expect(first.values == ["hello"])
    #expect(second.values == ["hello"])
    #expect(second.completion == .finished)
  }

  @Test func cancelBeforeDemandDeliversNothing() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    Just(1).subscribe(subscriber)
    let subscription = subscriber.subscription
    subscriber.cancel()
    subscription?.request(.max(1))
    #expect(subscriber.events == [.subscription])
  }

  @Test func sinkReceivesTheValue() {
    var received: [Int] = []
    var completion: Subscribers.Completion<Never>?
    let token = Just(7).sink(receiveCompletion: { completion = $0 }, receiveValue: { received.append($0) })
    #expect(received == [7])
    #expect(completion == .finished)
    token.cancel()
  }

  @Test func exposesOutputAndEquatable() {
    #expect(Just(3).output == 3)
    #expect(Just(3) == Just(3))
    #expect(Just(3) != Just(4))
  }

  @Test func finishedSubscriptionReleasesTheSubscriber() {
    weak var weakProbe: CapturedProbe?
    var subscription: (any Subscription)?
    var values: [Int] = []
    do {
      let probe = CapturedProbe()
      weakProbe = probe
      Just(1).subscribe(
        AnySubscriber<Int, Never>(
          receiveSubscription: { subscription = $0 },
          receiveValue: {
            _ = probe
            values.append($0)
            return .none
          }))
    }
    #expect(weakProbe != nil)
    subscription?.request(.max(1))
    #expect(values == [1])
    #expect(weakProbe == nil)
    subscription = nil
  }

  @Test func cancelledSubscriptionReleasesTheSubscriber() {
    weak var weakProbe: CapturedProbe?
    var subscription: (any Subscription)?
    do {
      let probe = CapturedProbe()
      weakProbe = probe
      Just(1).subscribe(
        AnySubscriber<Int, Never>(
          receiveSubscription: { subscription = $0 },
          receiveValue: { _ in
            _ = probe
            return .none
          }))
    }
    #expect(weakProbe != nil)
    subscription?.cancel()
    #expect(weakProbe == nil)
    subscription = nil
  }

  @Test func sinkReleasesItsClosuresAfterCompletion() {
    weak var weakProbe: CapturedProbe?
    var token: AnyCancellable?
    do {
      let probe = CapturedProbe()
      weakProbe = probe
      token = Just(1).sink { _ in _ = probe }
    }
    #expect(token != nil)
    #expect(weakProbe == nil)
    token = nil
  }

  /// A cancelled subscription lets go of its subscriber (and value) after its lock: a subscriber
  /// that cancels its subscription in its `deinit` stopped the process on the lock taken twice.
  @Test func subscriberMayCancelItsSubscriptionInItsDeinit() {
    let holder = DeinitCancellingSubscriber<Int, Never>.Holder()
    Just(1).subscribe(DeinitCancellingSubscriber<Int, Never>(holder: holder))
    holder.subscription?.cancel()
    #expect(holder.cancelledInDeinit)
    holder.subscription = nil
  }

  /// As in Combine: described and shown in playgrounds as "Just", with the value as the
  /// mirror's one unlabelled child.
  @Test func subscriptionReflectsAsCombinesDoes() throws {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    Just(42).subscribe(subscriber)
    let subscription = try #require(subscriber.subscription)
    #expect(String(describing: subscription) == "Just")
    #expect((subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "Just")
    let mirror = try #require((subscription as? any CustomReflectable)?.customMirror)
    #expect(mirror.children.map(\.label) == [nil])
    #expect(mirror.children.first?.value as? Int == 42)
    subscriber.cancel()
    #expect((subscription as? any CustomReflectable)?.customMirror.children.isEmpty == true)
  }

  /// Evidence (OpenCombine): Apple's Combine interface (Just extensions; https://developer.apple.com/documentation/combine/just)
  /// and OpenCombine Sources/OpenCombine/Publishers/Just.swift. (Matches.)
  @Test func justOverloadsKeepCombinesTypesAndValues() {
    let mapped: Just<Int> = Just(1).map { $0 + 1 }
    #expect(mapped.output == 2)
    let counted: Just<Int> = Just("a").count()
    #expect(counted.output == 1)
    let smallest: Just<Int> = Just(3).min()
    #expect(smallest.output == 3)
    let unique: Just<Int> = Just(3).removeDuplicates()
    #expect(unique.output == 3)
    let none: Optional<Int>.Publisher = Just(3).prefix(0)
    #expect(none.output == nil)
    let one: Optional<Int>.Publisher = Just(3).prefix(1)
    #expect(one.output == 3)
    let dropped: Optional<Int>.Publisher = Just(3).dropFirst(1)
    #expect(dropped.output == nil)
    let kept: Optional<Int>.Publisher = Just(3).dropFirst(0)
    #expect(kept.output == 3)
    let scanned: Result<Int, Never>.Publisher = Just(3).scan(10, +)
    #expect(scanned.result == .success(13))
  }
}

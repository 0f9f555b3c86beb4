import Conduit
import ConduitTesting
import Synchronization
import Testing

/// DESIGN.md §2.7: on completion, failure or cancel a subscription drops its references to
/// upstream, downstream and user closures. Each test checks twice: a weak reference shows the
/// pipeline let go at once, while its token, subject or subscription is still held; a nested
/// leak check around the pipeline, with the long-lived publisher outside it, shows that the
/// publisher kept none of the pipeline's framework objects.
@Suite(.leakChecked)
struct ReleaseTests {
  // MARK: Subject → sink

  @Test(arguments: PipelineEnding.allCases)
  func passthroughToSinkDropsEverything(ending: PipelineEnding) throws {
    let subject = PassthroughSubject<Int, Oops>()
    try withLeakCheck { tracker in
      weak var weakCaptured: Captured?
      let token: AnyCancellable
      do {
        let captured = tracker.track(Captured())
        weakCaptured = captured
        token = subject.sink(receiveCompletion: { _ in captured.touch() }, receiveValue: { _ in captured.touch() })
      }
      subject.send(1)
      #expect(weakCaptured?.touches == 1)

      end(ending, subject: subject, token: token)

      #expect(weakCaptured == nil)
      withExtendedLifetime(token) {}
    }
  }

  @Test(arguments: PipelineEnding.allCases)
  func currentValueToSinkDropsEverything(ending: PipelineEnding) throws {
    let subject = CurrentValueSubject<Int, Oops>(0)
    try withLeakCheck { tracker in
      weak var weakCaptured: Captured?
      let token: AnyCancellable
      do {
        let captured = tracker.track(Captured())
        weakCaptured = captured
        token = subject.sink(receiveCompletion: { _ in captured.touch() }, receiveValue: { _ in captured.touch() })
      }
      #expect(weakCaptured?.touches == 1)

      end(ending, subject: subject, token: token)

      #expect(weakCaptured == nil)
      withExtendedLifetime(token) {}
    }
  }

  @Test(arguments: PipelineEnding.allCases)
  func subjectSubscriptionDropsItsSubscriber(ending: PipelineEnding) throws {
    let subject = PassthroughSubject<Int, Oops>()
    try withLeakCheck { tracker in
      weak var weakHolder: SubscriptionHolder<Int, Oops>?
      let subscription: (any Subscription)?
      do {
        let holder = tracker.track(SubscriptionHolder<Int, Oops>())
        weakHolder = holder
        subject.subscribe(holder)
        subscription = holder.subscription
      }
      subscription?.request(.unlimited)
      subject.send(1)
      #expect(weakHolder?.values == [1])

      switch ending {
      case .finished: subject.send(completion: .finished)
      case .failed: subject.send(completion: .failure(Oops()))
      case .cancelled: subscription?.cancel()
      }

      #expect(weakHolder == nil)
      withExtendedLifetime(subscription) {}
    }
  }

  @Test func subjectReleasedWithoutCompletionFreesItsSubscribers() throws {
    weak var weakSubject: PassthroughSubject<Int, Never>?
    try withLeakCheck { tracker in
      let subject = PassthroughSubject<Int, Never>()
      weakSubject = subject
      let subscriber = tracker.track(TestSubscriber<Int, Never>())
      subject.subscribe(subscriber)
      subject.send(1)
      subscriber.cancel()
    }
    #expect(weakSubject == nil)
  }

  @Test func relayFinishedByItsUpstreamDropsTheUpstream() throws {
    let relay = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    relay.subscribe(subscriber)
    try withLeakCheck { _ in
      let upstream = PassthroughSubject<Int, Never>()
      let token = upstream.subscribe(relay)
      upstream.send(1)
      upstream.send(completion: .finished)
      withExtendedLifetime(token) {}
    }
    #expect(subscriber.events == [.subscription, .value(1), .completion(.finished)])
  }

  @Test func relayLetsGoOfItsSubjectWhenItsUpstreamCompletes() {
    weak var weakSubject: PassthroughSubject<Int, Never>?
    var token: AnyCancellable?
    let subscriber = TestSubscriber<Int, Never>()
    do {
      let subject = PassthroughSubject<Int, Never>()
      weakSubject = subject
      // A subscriber's demand makes the subject ask `Just` for its value, so it completes.
      subject.subscribe(subscriber)
      token = Just(1).subscribe(subject)
    }
    // The token is still held, as a user's bag would hold it.
    #expect(weakSubject == nil)
    #expect(subscriber.events == [.subscription, .value(1), .completion(.finished)])
    withExtendedLifetime(token) {}
  }

  // Nobody asked the subject for anything, so it asked its upstream for nothing, and the upstream
  // never completes: the relay keeps the subject until its token goes, as in Combine.
  @Test func relayWithoutDemandKeepsItsSubjectUntilItsTokenGoes() {
    weak var weakSubject: PassthroughSubject<Int, Never>?
    var token: AnyCancellable?
    do {
      let subject = PassthroughSubject<Int, Never>()
      weakSubject = subject
      token = Just(1).subscribe(subject)
    }
    #expect(weakSubject != nil)
    #expect(token != nil)
    token = nil
    #expect(weakSubject == nil)
  }

  @Test func subjectThatKeepsItsOwnRelayTokenIsFreedOnceItsUpstreamCompletes() {
    weak var weakSubject: TokenKeepingSubject?
    do {
      let subject = TokenKeepingSubject()
      weakSubject = subject
      subject.token = [1, 2, 3].publisher.subscribe(subject)
      #expect(subject.received == [1, 2, 3])
    }
    #expect(weakSubject == nil)
  }

  // MARK: Future

  @Test(arguments: PipelineEnding.allCases)
  func futureToSinkDropsEverything(ending: PipelineEnding) throws {
    let promiseBox = PromiseBox()
    let future = Future<Int, Oops> { promise in promiseBox.promise = promise }
    try withLeakCheck { tracker in
      weak var weakCaptured: Captured?
      let token: AnyCancellable
      do {
        let captured = tracker.track(Captured())
        weakCaptured = captured
        token = future.sink(receiveCompletion: { _ in captured.touch() }, receiveValue: { _ in captured.touch() })
      }

      switch ending {
      case .finished: promiseBox.promise?(.success(1))
      case .failed: promiseBox.promise?(.failure(Oops()))
      case .cancelled: token.cancel()
      }

      #expect(weakCaptured == nil)
      withExtendedLifetime(token) {}
    }
    promiseBox.promise = nil
  }

  @Test func futureSubscriptionHoldingAValueDropsItsSubscriberOnCancel() throws {
    let future = Future<Int, Never> { promise in promise(.success(1)) }
    try withLeakCheck { tracker in
      weak var weakHolder: SubscriptionHolder<Int, Never>?
      let subscription: (any Subscription)?
      do {
        let holder = tracker.track(SubscriptionHolder<Int, Never>())
        weakHolder = holder
        future.subscribe(holder)
        subscription = holder.subscription
      }
      #expect(weakHolder != nil)

      subscription?.cancel()

      #expect(weakHolder == nil)
      withExtendedLifetime(subscription) {}
    }
  }

  // MARK: Just

  @Test func justSubscriptionDropsItsSubscriberOnCompletion() {
    weak var weakHolder: SubscriptionHolder<Int, Never>?
    let subscription: (any Subscription)?
    do {
      let holder = SubscriptionHolder<Int, Never>()
      weakHolder = holder
      Just(1).subscribe(holder)
      subscription = holder.subscription
      subscription?.request(.max(1))
      #expect(holder.values == [1])
      #expect(holder.finished)
    }
    #expect(weakHolder == nil)
    withExtendedLifetime(subscription) {}
  }

  @Test func justSubscriptionDropsItsSubscriberOnCancel() {
    weak var weakHolder: SubscriptionHolder<Int, Never>?
    let subscription: (any Subscription)?
    do {
      let holder = SubscriptionHolder<Int, Never>()
      weakHolder = holder
      Just(1).subscribe(holder)
      subscription = holder.subscription
    }
    #expect(weakHolder != nil)

    subscription?.cancel()

    #expect(weakHolder == nil)
    subscription?.request(.max(1))
  }

  @Test func justToSinkReleasesCapturedObjects() throws {
    try withLeakCheck { tracker in
      weak var weakCaptured: Captured?
      let token: AnyCancellable
      do {
        let captured = tracker.track(Captured())
        weakCaptured = captured
        token = Just(1).sink { _ in captured.touch() }
      }
      #expect(weakCaptured == nil)
      withExtendedLifetime(token) {}
    }
  }

  // MARK: Sequence

  @Test(arguments: PipelineEnding.allCases)
  func sequenceSubscriptionDropsItsSubscriber(ending: PipelineEnding) {
    weak var weakHolder: SubscriptionHolder<Int, Oops>?
    let subscription: (any Subscription)?
    do {
      let holder = SubscriptionHolder<Int, Oops>()
      weakHolder = holder
      let completion: Subscribers.Completion<Oops> = ending == .failed ? .failure(Oops()) : .finished
      Record(output: [1, 2, 3], completion: completion).subscribe(holder)
      subscription = holder.subscription
    }
    subscription?.request(.max(1))
    #expect(weakHolder?.values == [1])

    switch ending {
    case .finished, .failed: subscription?.request(.unlimited)
    case .cancelled: subscription?.cancel()
    }

    #expect(weakHolder == nil)
    withExtendedLifetime(subscription) {}
  }

  @Test func sequenceToSinkReleasesCapturedObjects() throws {
    try withLeakCheck { tracker in
      weak var weakCaptured: Captured?
      let token: AnyCancellable
      do {
        let captured = tracker.track(Captured())
        weakCaptured = captured
        token = (1...3).publisher.sink { _ in captured.touch() }
        #expect(captured.touches == 3)
      }
      #expect(weakCaptured == nil)
      withExtendedLifetime(token) {}
    }
  }

  // MARK: Assign

  @Test(arguments: [PipelineEnding.finished, .cancelled])
  func assignDropsItsObject(ending: PipelineEnding) throws {
    let subject = PassthroughSubject<Int, Never>()
    try withLeakCheck { tracker in
      weak var weakCaptured: Captured?
      let token: AnyCancellable
      do {
        let captured = tracker.track(Captured())
        weakCaptured = captured
        token = subject.assign(to: \.touches, on: captured)
      }
      subject.send(5)
      #expect(weakCaptured?.touches == 5)

      if ending == .cancelled { token.cancel() } else { subject.send(completion: .finished) }

      #expect(weakCaptured == nil)
      withExtendedLifetime(token) {}
    }
  }
}

/// Pipelines dropped (cancelled by their token's deinit) on one thread while values flow on
/// others: nothing reaches the sink after the value in flight when the token went, and what the
/// pipeline held is freed. Under ThreadSanitizer these also catch a use of a subscription, slot or
/// subject after it was freed.
@Suite(.leakChecked, .serialized)
struct ReleaseStressTests {
  enum Combining: CaseIterable, Sendable {
    case merge
    case zip
    case combineLatest

    fileprivate func sink(
      _ first: PassthroughSubject<Int, Never>, _ second: PassthroughSubject<Int, Never>, into tally: SinkTally
    ) -> AnyCancellable {
      switch self {
      case .merge: first.merge(with: second).sink { tally.record($0) }
      case .zip: first.zip(second).sink { tally.record($0.0) }
      case .combineLatest: first.combineLatest(second).sink { tally.record($0.0) }
      }
    }
  }

  @Test(arguments: Combining.allCases)
  func combiningPipelineDroppedWhileBothUpstreamsSendGetsNothingMore(_ combining: Combining) {
    for _ in 0..<100 {
      let first = PassthroughSubject<Int, Never>()
      let second = PassthroughSubject<Int, Never>()
      let tally = SinkTally()
      // No local keeps the token: a debug build would hold it to the end of the scope.
      let holder = Locked<AnyCancellable?>(combining.sink(first, second, into: tally))
      runOnThreads(3) { thread in
        switch thread {
        case 0: for index in 0..<300 { first.send(index) }
        case 1: for index in 0..<300 { second.send(index) }
        default:
          while tally.count < 20 {}
          drop(holder)
          tally.noteDrop()
        }
      }
      #expect(tally.count <= tally.countAtDrop + 1)
      first.send(-1)
      second.send(-1)
      #expect(tally.count <= tally.countAtDrop + 1)
    }
  }

  @Test func shareSinksDroppedWhileValuesFlowGetNothingMore() {
    for _ in 0..<200 {
      let source = PassthroughSubject<Int, Never>()
      let shared = source.share()
      let sent = Atomic<Int>(0)
      let tallies = Locked<[SinkTally]>([])
      runOnThreads(4) { thread in
        if thread == 0 {
          for index in 0..<400 {
            source.send(index)
            sent.wrappingAdd(1, ordering: .relaxed)
          }
          source.send(completion: .finished)
          return
        }
        var mine: [SinkTally] = []
        for _ in 0..<20 {
          let tally = SinkTally()
          let holder = Locked<AnyCancellable?>(shared.sink { tally.record($0) })
          while sent.load(ordering: .relaxed) < 5 {}
          drop(holder)
          tally.noteDrop()
          mine.append(tally)
        }
        tallies.withLock { $0.append(contentsOf: mine) }
      }
      let all = tallies.withLock { $0 }
      #expect(all.count == 60)
      #expect(all.allSatisfy { $0.count <= $0.countAtDrop + 1 })
      // Never two connections at once, each sending every value to the subject.
      #expect(all.allSatisfy { $0.increasing })
    }
  }

  @Test func relayAndItsSubjectDroppedWhileTheUpstreamSendsAreFreed() {
    for _ in 0..<300 {
      let source = PassthroughSubject<Int, Never>()
      let tally = SinkTally()
      weak var weakSubject: PassthroughSubject<Int, Never>?
      let holder = Locked<(PassthroughSubject<Int, Never>, AnyCancellable, AnyCancellable)?>(nil)
      do {
        let subject = PassthroughSubject<Int, Never>()
        weakSubject = subject
        let sink = subject.sink { tally.record($0) }
        holder.withLock { $0 = (subject, source.subscribe(subject), sink) }
      }
      let sent = Atomic<Int>(0)
      runOnThreads(2) { thread in
        if thread == 0 {
          for index in 0..<300 {
            source.send(index)
            sent.wrappingAdd(1, ordering: .relaxed)
          }
        } else {
          while sent.load(ordering: .relaxed) < 20 {}
          drop(holder)
          tally.noteDrop()
        }
      }
      #expect(tally.count >= 20)
      #expect(tally.count <= tally.countAtDrop + 1)
      #expect(tally.inOrder)
      #expect(weakSubject == nil)
    }
  }
}

/// Takes what `holder` holds out of it and lets it go outside the lock, before returning.
@inline(never)
private func drop<Held>(_ holder: borrowing Locked<Held?>) {
  let held = holder.withLock { held in
    defer { held = nil }
    return held
  }
  withExtendedLifetime(held) {}
}

/// Counts what reaches a sink, and whether each value was the one after the last.
private final class SinkTally: Sendable {
  private let received = Atomic<Int>(0)
  private let last = Atomic<Int>(Int.min)
  private let outOfOrder = Atomic<Bool>(false)
  private let repeatedOrBackwards = Atomic<Bool>(false)
  private let receivedAtDrop = Atomic<Int>(-1)

  var count: Int { received.load(ordering: .acquiring) }
  var countAtDrop: Int { receivedAtDrop.load(ordering: .acquiring) }
  var inOrder: Bool { !outOfOrder.load(ordering: .relaxed) }
  /// Every value was greater than the one before (values may have been skipped).
  var increasing: Bool { !repeatedOrBackwards.load(ordering: .relaxed) }

  func record(_ value: Int) {
    let previous = last.exchange(value, ordering: .relaxed)
    if previous != Int.min && value != previous + 1 {
      outOfOrder.store(true, ordering: .relaxed)
    }
    if previous != Int.min && value <= previous {
      repeatedOrBackwards.store(true, ordering: .relaxed)
    }
    received.wrappingAdd(1, ordering: .acquiringAndReleasing)
  }

  /// Notes how many values had arrived once the pipeline was dropped.
  func noteDrop() {
    receivedAtDrop.store(count, ordering: .releasing)
  }
}

/// How a pipeline ends.
enum PipelineEnding: CaseIterable, Sendable {
  case finished
  case failed
  case cancelled
}

private func end(_ ending: PipelineEnding, subject: some Subject<Int, Oops>, token: AnyCancellable) {
  switch ending {
  case .finished: subject.send(completion: .finished)
  case .failed: subject.send(completion: .failure(Oops()))
  case .cancelled: token.cancel()
  }
}

private final class PromiseBox {
  var promise: Future<Int, Oops>.Promise?
}

/// A subscriber that keeps its subscription and requests nothing by itself, so that only the
/// subscription letting go of it can free it.
private final class SubscriptionHolder<Input, Failure: Error>: Subscriber {
  private(set) var subscription: (any Subscription)?
  private(set) var values: [Input] = []
  private(set) var finished = false

  func receive(subscription: any Subscription) {
    self.subscription = subscription
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    values.append(input)
    return .none
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    finished = true
  }
}

/// A subject of the user's own that keeps the token of its upstream, which makes a cycle
/// through the relay until the relay lets go at completion.
private final class TokenKeepingSubject: Subject, @unchecked Sendable {
  typealias Output = Int
  typealias Failure = Never
  let relay = PassthroughSubject<Int, Never>()
  var token: AnyCancellable?
  var received: [Int] = []
  func send(_ value: Int) {
    received.append(value)
    relay.send(value)
  }
  func send(completion: Subscribers.Completion<Never>) { relay.send(completion: completion) }
  func send(subscription: any Subscription) { subscription.request(.unlimited) }
  func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
    relay.subscribe(subscriber)
  }
}

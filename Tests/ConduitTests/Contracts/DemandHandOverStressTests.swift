import Conduit
import ConduitTesting
import Dispatch
import Synchronization
import Testing

/// Who asks whom for what, and when, where a subscription stands between its subscriber and its
/// upstream: a passthrough subject asks its upstreams only after its first request, `dropFirst`
/// asks for what was requested before the upstream came plus what it drops, and a current-value
/// subject delivers values in the order they were set. Deterministic tests and races (which is
/// why the suite runs with the stress tests under ThreadSanitizer).
@Suite(.leakChecked(timeout: .seconds(3)), .serialized)
struct DemandHandOverStressTests {
  // MARK: - dropFirst: semantics against Combine

  /// Combine's `Drop` hands the subscriber its subscription before it subscribes upstream
  /// (OpenCombine's Combine-verified `DropTests.testLateSubscription`: the subscriber has
  /// `.subscription("Drop")` before the upstream has sent a subscription).
  @Test func dropFirstHandsTheSubscriberItsSubscriptionBeforeTheUpstreamHasSentOne() {
    let source = HandDrivenUpstream<Int, Never>(pumping: 0..<20, emitsOnRequest: true, sendsSubscription: false)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(10))
    source.dropFirst(4).subscribe(subscriber)
    #expect(subscriber.events == [.subscription])

    source.sendSubscription()
    #expect(source.totalRequested == .max(14))
    #expect(subscriber.values == Array(4..<14))
    subscriber.cancel()
  }

  /// The same order, seen through `Deferred`: as in Combine, the subscriber receives its
  /// subscription before the deferred publisher is even created.
  @Test func dropFirstSubscriberHasItsSubscriptionBeforeADeferredUpstreamIsCreated() {
    let log = LockedBox<[String]>([])
    let upstream = Deferred { () -> Just<Int> in
      log.withLock { $0.append("created") }
      return Just(1)
    }
    let token = upstream.dropFirst(0).sink(
      receiveCompletion: { _ in log.withLock { $0.append("completion") } },
      receiveValue: { value in log.withLock { $0.append("value \(value)") } })
    // Sink has no hook for its subscription; a handleEvents after dropFirst sees it.
    _ = token
    let ordered = LockedBox<[String]>([])
    let subscriber = TestSubscriber<Int, Never>()
    Deferred { () -> Just<Int> in
      ordered.withLock { $0.append("created") }
      return Just(1)
    }
    .dropFirst(0)
    .handleEvents(receiveSubscription: { _ in ordered.withLock { $0.append("subscription") } })
    .subscribe(subscriber)
    #expect(ordered.withLock { $0 } == ["subscription", "created"])
    #expect(subscriber.values == [1])
    #expect(log.withLock { $0 } == ["created", "value 1", "completion"])
  }

  /// Combine-verified `DropTests.testDropReceiveCompletionBeforeSubscription`: an upstream that
  /// completes without sending a subscription; Combine's subscriber already has its
  /// subscription, so it sees `[.subscription, .completion]`, never a completion with no
  /// subscription before it (§2.1).
  @Test func dropFirstUpstreamCompletingBeforeItsSubscription() {
    let subscriber = TestSubscriber<Int, Never>()
    CompletesWithoutSubscription().dropFirst(0).subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .completion(.finished)])
  }

  // MARK: - dropFirst: §2.7 (drops its subscriber at completion and cancel)

  /// DESIGN §2.7: on completion a subscription drops its downstream, so that a subscriber that
  /// keeps its subscription (as many do) makes no cycle with it. (Combine's Drop keeps it, but
  /// Conduit promises otherwise, as every other wrapping operator here does.)
  @Test func dropFirstLetsGoOfASubscriberThatKeepsItsSubscriptionAtCompletion() {
    weak var weakHolder: SubscriptionKeeper<Int, Never>?
    do {
      let holder = SubscriptionKeeper<Int, Never>(initialDemand: .unlimited)
      weakHolder = holder
      // Erased, so that Just's own dropFirst (which returns Optional.Publisher) is not used.
      Just(1).eraseToAnyPublisher().dropFirst(0).subscribe(holder)
      #expect(holder.values == [1])
      #expect(holder.finished)
    }
    #expect(weakHolder == nil)
  }

  @Test func dropFirstLetsGoOfASubscriberThatKeepsItsSubscriptionAtCancel() {
    let upstream = HandDrivenUpstream<Int, Never>()
    weak var weakHolder: SubscriptionKeeper<Int, Never>?
    do {
      let holder = SubscriptionKeeper<Int, Never>(initialDemand: .max(1))
      weakHolder = holder
      upstream.dropFirst(1).subscribe(holder)
      holder.subscription?.cancel()
    }
    #expect(upstream.link?.isCancelled == true)
    #expect(weakHolder == nil)
  }

  // MARK: - dropFirst: what held

  @Test func dropFirstSumsRequestsMadeInsideReceiveSubscriptionAndFromAnotherThread() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = CallbackSubscriber<Int, Never>(onSubscription: { subscription in
      subscription.request(.max(1))
      subscription.request(.max(2))
      let shared = UncheckedSubscription(subscription)
      runOnThreads(1) { _ in shared.subscription.request(.max(3)) }
    })
    upstream.dropFirst(5).subscribe(subscriber)
    #expect(upstream.link?.requests == [.max(11)])
    subscriber.subscription?.request(.max(4))
    #expect(upstream.link?.requests == [.max(11), .max(4)])
    subscriber.cancel()
  }

  @Test func dropFirstCancelInsideReceiveSubscriptionAsksUpstreamForNothing() {
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = CallbackSubscriber<Int, Never>(onSubscription: { subscription in
      subscription.request(.max(2))
      subscription.cancel()
      subscription.request(.max(2))
      subscription.cancel()
    })
    upstream.dropFirst(3).subscribe(subscriber)
    #expect(upstream.link?.requests == [])
    #expect(upstream.link?.isCancelled == true)
    upstream.send(1)
    upstream.send(completion: .finished)
    #expect(subscriber.events == ["subscription"])
    // It keeps its subscription, which would keep it (see the tests above).
    subscriber.cancel()
  }

  @Test func dropFirstDemandOverflowBecomesUnlimited() {
    for initial in [Subscribers.Demand.unlimited, .max(Int.max), .max(Int.max - 1)] {
      let upstream = HandDrivenUpstream<Int, Never>()
      let subscriber = TestSubscriber<Int, Never>(initialDemand: initial)
      upstream.dropFirst(3).subscribe(subscriber)
      #expect(upstream.link?.requests == [.unlimited])
      subscriber.cancel()
    }
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.dropFirst(Int.max).subscribe(subscriber)
    subscriber.request(.unlimited)
    #expect(upstream.link?.requests == [.max(Int.max), .unlimited])
    subscriber.cancel()
  }

  @Test func dropFirstOverSynchronousUpstreams() {
    // Erased, so that Just's and Sequence's own dropFirst are not used.
    let just = TestSubscriber<Int, Never>(initialDemand: .none)
    Just(1).eraseToAnyPublisher().dropFirst().subscribe(just)
    // Combine asks for the element to drop at once, so Just completes with no demand.
    #expect(just.events == [.subscription, .completion(.finished)])

    let justZero = TestSubscriber<Int, Never>(initialDemand: .none)
    Just(1).eraseToAnyPublisher().dropFirst(0).subscribe(justZero)
    #expect(justZero.events == [.subscription])
    justZero.request(.max(1))
    #expect(justZero.events == [.subscription, .value(1), .completion(.finished)])

    let current = CurrentValueSubject<Int, Never>(0)
    let skipsInitial = TestSubscriber<Int, Never>(initialDemand: .max(1))
    current.dropFirst().subscribe(skipsInitial)
    current.send(1)
    current.send(2)
    #expect(skipsInitial.values == [1])

    let passthrough = PassthroughSubject<Int, Never>()
    let relayed = TestSubscriber<Int, Never>()
    passthrough.dropFirst(2).subscribe(relayed)
    let token = [1, 2, 3, 4].publisher.eraseToAnyPublisher().subscribe(passthrough)
    #expect(relayed.events == [.subscription, .value(3), .value(4), .completion(.finished)])

    let nested = TestSubscriber<Int, Never>(initialDemand: .max(2))
    (1...10).publisher.eraseToAnyPublisher().dropFirst(1).dropFirst(2).subscribe(nested)
    #expect(nested.values == [4, 5])
    for subscriber in [just, justZero, skipsInitial, relayed, nested] {
      #expect(subscriber.violations.isEmpty)
    }
    skipsInitial.cancel()
    nested.cancel()
    withExtendedLifetime(token) {}
  }

  /// A subscriber's cancel on another thread races the request `dropFirst` makes once the
  /// subscriber's `receive(subscription:)` has returned.
  @Test func dropFirstCancelRacingTheFirstUpstreamRequest() {
    typealias Round = (source: HandDrivenUpstream<Int, Never>, subscriber: TestSubscriber<Int, Never>)
    let problem = race(
      rounds: 3_000,
      setup: { () -> Round in
        let round: Round = (
          HandDrivenUpstream<Int, Never>(pumping: 0..<8, emitsOnRequest: true, sendsSubscription: false),
          TestSubscriber()
        )
        round.source.dropFirst(2).subscribe(round.subscriber)
        return round
      },
      sides: [
        { round in round.source.sendSubscription() },
        { round in
          var spins = 0
          while round.subscriber.subscription == nil && spins < 100_000 { spins += 1 }
          round.subscriber.cancel()
        },
      ],
      check: { round in
        for _ in 0..<3 { round.source.pump() }
        let values = round.subscriber.values
        if values != Array(2..<(2 + values.count)) { return "got \(values)" }
        if round.subscriber.subscription != nil { return "subscriber still subscribed" }
        if !round.source.isCancelled && !round.source.isExhausted { return "upstream neither cancelled nor done" }
        if !round.subscriber.violations.isEmpty { return "\(round.subscriber.violations)" }
        return nil
      })
    #expect(problem == nil)
  }

  /// A request from another thread while the subscriber is still inside `receive(subscription:)`.
  @Test func dropFirstRequestFromAnotherThreadDuringReceiveSubscription() {
    typealias Round = (source: HandDrivenUpstream<Int, Never>, subscriber: TestSubscriber<Int, Never>)
    let problem = race(
      rounds: 3_000,
      setup: { () -> Round in
        let round: Round = (
          HandDrivenUpstream<Int, Never>(pumping: 0..<20, emitsOnRequest: true, sendsSubscription: false),
          TestSubscriber(initialDemand: .max(1))
        )
        round.source.dropFirst(2).subscribe(round.subscriber)
        return round
      },
      sides: [
        { round in round.source.sendSubscription() },
        { round in
          var spins = 0
          while round.subscriber.subscription == nil && spins < 100_000 { spins += 1 }
          round.subscriber.request(.max(2))
        },
      ],
      check: { round in
        defer { round.subscriber.cancel() }
        for _ in 0..<3 { round.source.pump() }
        if round.subscriber.values != [2, 3, 4] { return "got \(round.subscriber.values)" }
        if round.source.totalRequested != .max(5) { return "requested \(round.source.totalRequested)" }
        if !round.subscriber.violations.isEmpty { return "\(round.subscriber.violations)" }
        return nil
      })
    #expect(problem == nil)
  }

  // MARK: - PassthroughSubject: upstream demand only after the first request

  /// The first request and `send(subscription:)` on two threads: the upstream is asked exactly
  /// once, for `.unlimited`.
  @Test func firstRequestRacingSendSubscriptionAsksTheUpstreamExactlyOnce() {
    typealias Round = (
      subject: PassthroughSubject<Int, Never>, subscriber: TestSubscriber<Int, Never>, upstream: SpySubscription
    )
    let problem = race(
      rounds: 20_000,
      setup: { () -> Round in
        let round: Round = (PassthroughSubject(), TestSubscriber(initialDemand: .none), SpySubscription())
        round.subject.subscribe(round.subscriber)
        return round
      },
      sides: [
        { round in round.subject.send(subscription: round.upstream) },
        { round in round.subscriber.request(.max(1)) },
      ],
      check: { round in
        defer { round.subscriber.cancel() }
        let requests = round.upstream.requests
        return requests == [.unlimited] ? nil : "upstream asked for \(requests)"
      })
    #expect(problem == nil)
  }

  /// Two subscribers' first requests and two upstreams arriving, on three threads.
  @Test func twoFirstRequestsRacingTwoUpstreamsAskEachUpstreamOnce() {
    typealias Round = (
      subject: PassthroughSubject<Int, Never>, subscribers: [TestSubscriber<Int, Never>],
      upstreams: [SpySubscription]
    )
    let problem = race(
      rounds: 10_000,
      setup: { () -> Round in
        let round: Round = (
          PassthroughSubject(), [TestSubscriber(initialDemand: .none), TestSubscriber(initialDemand: .none)],
          [SpySubscription(), SpySubscription()]
        )
        for subscriber in round.subscribers { round.subject.subscribe(subscriber) }
        return round
      },
      sides: [
        { round in round.subject.send(subscription: round.upstreams[0]) },
        { round in
          round.subscribers[0].request(.max(1))
          round.subject.send(subscription: round.upstreams[1])
        },
        { round in round.subscribers[1].request(.max(1)) },
      ],
      check: { round in
        defer { for subscriber in round.subscribers { subscriber.cancel() } }
        for upstream in round.upstreams where upstream.requests != [.unlimited] {
          return "upstream asked for \(upstream.requests)"
        }
        return nil
      })
    #expect(problem == nil)
  }

  /// The relay's token cancelled while the first request asks the subject's upstreams: the
  /// upstream is cancelled, asked at most once, and the subject forgets it (a later upstream is
  /// asked at once; the leak check sees no relay left).
  @Test func relayCancelledWhileTheFirstRequestAcknowledges() {
    typealias Round = (
      subject: PassthroughSubject<Int, Never>, subscriber: TestSubscriber<Int, Never>,
      upstream: HandDrivenUpstream<Int, Never>, token: AnyCancellable
    )
    let problem = race(
      rounds: 10_000,
      setup: { () -> Round in
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        subject.subscribe(subscriber)
        let upstream = HandDrivenUpstream<Int, Never>()
        let token = upstream.subscribe(subject)
        return (subject, subscriber, upstream, token)
      },
      sides: [
        { round in round.subscriber.request(.max(1)) },
        { round in round.token.cancel() },
      ],
      check: { round in
        defer { round.subscriber.cancel() }
        guard let link = round.upstream.link else { return "no link" }
        if !link.isCancelled { return "upstream not cancelled" }
        if link.requests.count > 1 || link.requests.contains(where: { $0 != .unlimited }) {
          return "upstream asked for \(link.requests)"
        }
        let later = SpySubscription()
        round.subject.send(subscription: later)
        if later.requests != [.unlimited] { return "later upstream asked for \(later.requests)" }
        return nil
      })
    #expect(problem == nil)
  }

  /// `connect()` racing the first subscriber of a `makeConnectable()` over a synchronous
  /// upstream: whichever comes first, the subscriber gets every value.
  @Test func connectRacingTheFirstSubscriberOfASynchronousUpstream() {
    typealias Round = (
      connectable: Publishers.MakeConnectable<Publishers.Sequence<[Int], Never>>,
      subscriber: TestSubscriber<Int, Never>, connection: LockedBox<AnyCancellable?>
    )
    let problem = race(
      rounds: 5_000,
      setup: { () -> Round in ([1, 2, 3].publisher.makeConnectable(), TestSubscriber(), LockedBox(nil)) },
      sides: [
        { round in
          let connection = AnyCancellable(round.connectable.connect())
          round.connection.withLock { $0 = connection }
        },
        { round in round.connectable.subscribe(round.subscriber) },
      ],
      check: { round in
        defer { round.connection.withLock { $0 = nil } }
        if round.subscriber.events != [.subscription, .value(1), .value(2), .value(3), .completion(.finished)] {
          return "got \(round.subscriber.events)"
        }
        return nil
      })
    #expect(problem == nil)
  }

  /// Two subscribers of `share()` over a synchronous upstream, on two threads: each gets a
  /// suffix of the values and the completion, and at least one gets them all.
  @Test func twoSubscribersOfAShareOverASynchronousUpstream() {
    typealias Round = (
      shared: Publishers.Share<Publishers.Sequence<[Int], Never>>, subscribers: [TestSubscriber<Int, Never>]
    )
    let problem = race(
      rounds: 5_000,
      setup: { () -> Round in ([1, 2, 3].publisher.share(), [TestSubscriber(), TestSubscriber()]) },
      sides: [
        { round in round.shared.subscribe(round.subscribers[0]) },
        { round in round.shared.subscribe(round.subscribers[1]) },
      ],
      check: { round in
        let suffixes: [[Int]] = [[1, 2, 3], [2, 3], [3], []]
        for subscriber in round.subscribers {
          if !suffixes.contains(subscriber.values) || subscriber.completion != .finished {
            return "got \(subscriber.events)"
          }
          if !subscriber.violations.isEmpty { return "\(subscriber.violations)" }
        }
        if !round.subscribers.contains(where: { $0.values == [1, 2, 3] }) {
          return "nobody got every value: \(round.subscribers.map(\.values))"
        }
        return nil
      })
    #expect(problem == nil)
  }

  /// `share()` of a subject that another thread sends to while the first subscriber joins: the
  /// subscriber gets a gap-free run of the values sent after the share asked upstream.
  @Test func shareOfAnAsynchronousUpstreamJoinedWhileItSends() {
    typealias Round = (
      source: PassthroughSubject<Int, Never>, shared: Publishers.Share<PassthroughSubject<Int, Never>>,
      subscriber: TestSubscriber<Int, Never>
    )
    let problem = race(
      rounds: 3_000,
      setup: { () -> Round in
        let source = PassthroughSubject<Int, Never>()
        return (source, source.share(), TestSubscriber())
      },
      sides: [
        { round in for value in 0..<40 { round.source.send(value) } },
        { round in round.shared.subscribe(round.subscriber) },
      ],
      check: { round in
        defer { round.subscriber.cancel() }
        round.source.send(40)
        let values = round.subscriber.values
        guard let first = values.first, values == Array(first...40) else { return "got \(values)" }
        if !round.subscriber.violations.isEmpty { return "\(round.subscriber.violations)" }
        return nil
      })
    #expect(problem == nil)
  }

  /// A subscriber that asks from inside `receive(subscription:)` of a connected
  /// `makeConnectable()` over a synchronous upstream runs the upstream on the spot; its values
  /// wait until `receive(subscription:)` has returned, and come in order with the completion.
  @Test func requestInsideReceiveSubscriptionRunsAConnectedSynchronousUpstream() {
    let connectable = (1...5).publisher.makeConnectable()
    let connection = connectable.connect()
    let subscriber = CallbackSubscriber<Int, Never>(onSubscription: { $0.request(.max(3)) })
    connectable.subscribe(subscriber)
    #expect(subscriber.events == ["subscription", "1", "2", "3", "finished"])
    #expect(subscriber.valuesInsideReceiveSubscription == 0)
    connection.cancel()
  }

  /// Subscribing from inside another subscriber's `receive(_:)` (the subject's delivery is owned
  /// by this thread) and asking at once runs a connected synchronous upstream into the same
  /// subject's queue.
  @Test func firstRequestFromASubscriberJoiningInsideAnotherReceive() {
    let trigger = PassthroughSubject<Int, Never>()
    let relay = PassthroughSubject<Int, Never>()
    let late = TestSubscriber<Int, Never>()
    let early = CallbackSubscriber<Int, Never>(
      onSubscription: { $0.request(.unlimited) },
      onValue: { _ in relay.subscribe(late) })
    trigger.subscribe(early)
    // The relay is fed by a synchronous upstream that nobody has asked yet.
    let token = [7, 8, 9].publisher.subscribe(relay)
    trigger.send(0)
    #expect(late.events == [.subscription, .value(7), .value(8), .value(9), .completion(.finished)])
    #expect(late.violations.isEmpty)
    early.cancel()
    withExtendedLifetime(token) {}
  }

  // MARK: - CurrentValueSubject: set and claim under one lock

  /// Re-entrant assignments, sends and reads of `value` from inside `receive`: no deadlock,
  /// values in order, and `value` reads what was last set.
  @Test func reentrantAssignmentsSendsAndReadsInsideReceive() {
    let subject = CurrentValueSubject<Int, Never>(0)
    let reads = LockedBox<[Int]>([])
    let subscriber = CallbackSubscriber<Int, Never>(
      onSubscription: { $0.request(.unlimited) },
      onValue: { value in
        reads.withLock { $0.append(subject.value) }
        if value == 1 {
          subject.value = 2
          reads.withLock { $0.append(subject.value) }
          subject.send(3)
          reads.withLock { $0.append(subject.value) }
        } else if value == 3 {
          subject.send(completion: .finished)
          subject.value = 4
          reads.withLock { $0.append(subject.value) }
          subject.send(5)
        }
      })
    subject.subscribe(subscriber)
    subject.send(1)
    #expect(subscriber.events == ["subscription", "0", "1", "2", "3", "finished"])
    #expect(reads.withLock { $0 } == [0, 1, 2, 3, 3, 3, 4])
    #expect(subject.value == 4)
  }

  /// One thread is inside a subscriber's `receive` and blocks until another thread has assigned,
  /// sent, read `value` and completed: none of those may wait for the blocked delivery.
  @Test func assignmentsDoNotWaitForASubscriberBlockedOnThem() {
    let subject = CurrentValueSubject<Int, Never>(0)
    let inside = DispatchSemaphore(value: 0)
    let otherDone = DispatchSemaphore(value: 0)
    let timedOut = Atomic<Bool>(false)
    let subscriber = CallbackSubscriber<Int, Never>(
      onSubscription: { $0.request(.unlimited) },
      onValue: { value in
        guard value == 1 else { return }
        inside.signal()
        if otherDone.wait(timeout: .now() + .seconds(2)) == .timedOut { timedOut.store(true, ordering: .relaxed) }
      })
    subject.subscribe(subscriber)
    let reads = LockedBox<[Int]>([])
    runOnThreads(2) { thread in
      if thread == 0 {
        subject.send(1)
      } else {
        inside.wait()
        // More than the succession threshold, so the blocked owner offers to hand over.
        for value in 2...40 {
          subject.value = value
          reads.withLock { $0.append(subject.value) }
        }
        subject.send(completion: .finished)
        otherDone.signal()
      }
    }
    let blockedTooLong = timedOut.load(ordering: .relaxed)
    #expect(!blockedTooLong)
    #expect(reads.withLock { $0 } == Array(2...40))
    #expect(subscriber.events == ["subscription"] + (0...40).map(String.init) + ["finished"])
  }

  /// The owner of delivery is draining a queue (past the threshold at which it offers to hand
  /// over) when its subscriber blocks until another thread's assignments have returned: the
  /// other thread's offer to take over times out rather than deadlocking, and everything
  /// arrives in order.
  @Test func assignmentsDoNotWaitForADrainingOwnerBlockedOnThem() {
    let subject = CurrentValueSubject<Int, Never>(0)
    let firstInside = DispatchSemaphore(value: 0)
    let queued = DispatchSemaphore(value: 0)
    let secondInside = DispatchSemaphore(value: 0)
    let assigned = DispatchSemaphore(value: 0)
    let timedOut = Atomic<Int>(0)
    let subscriber = CallbackSubscriber<Int, Never>(
      onSubscription: { $0.request(.unlimited) },
      onValue: { value in
        if value == 1 {
          firstInside.signal()
          if queued.wait(timeout: .now() + .seconds(2)) == .timedOut { timedOut.wrappingAdd(1, ordering: .relaxed) }
        } else if value == 30 {
          secondInside.signal()
          if assigned.wait(timeout: .now() + .seconds(2)) == .timedOut { timedOut.wrappingAdd(1, ordering: .relaxed) }
        }
      })
    subject.subscribe(subscriber)
    let started = ContinuousClock.now
    runOnThreads(2) { thread in
      if thread == 0 {
        subject.send(1)
      } else {
        firstInside.wait()
        for value in 2...40 { subject.value = value }
        queued.signal()
        secondInside.wait()
        for value in 41...60 { subject.value = value }
        subject.send(completion: .finished)
        assigned.signal()
      }
    }
    let timeouts = timedOut.load(ordering: .relaxed)
    #expect(timeouts == 0)
    #expect(ContinuousClock.now - started < .seconds(1))
    #expect(subscriber.events == ["subscription"] + (0...60).map(String.init) + ["finished"])
    #expect(subject.value == 60)
  }

  /// Two current-value subjects whose subscribers assign to each other, driven from two threads
  /// at once: no deadlock, every subscriber's calls serialized, and once everything has returned
  /// the value each subscriber got last is its subject's value.
  @Test func crossFeedingSubjectsOnTwoThreads() {
    typealias Round = (
      first: CurrentValueSubject<Int, Never>, second: CurrentValueSubject<Int, Never>,
      firstSeen: TestSubscriber<Int, Never>, secondSeen: TestSubscriber<Int, Never>, tokens: [AnyCancellable]
    )
    let problem = race(
      rounds: 1_000,
      setup: { () -> Round in
        let first = CurrentValueSubject<Int, Never>(0)
        let second = CurrentValueSubject<Int, Never>(0)
        let firstSeen = TestSubscriber<Int, Never>()
        let secondSeen = TestSubscriber<Int, Never>()
        first.subscribe(firstSeen)
        second.subscribe(secondSeen)
        // Every value of the first goes to the second; even values of the second come back odd.
        let forward = first.sink { second.value = $0 }
        let back = second.sink { if $0 % 2 == 0 { first.send($0 + 1) } }
        return (first, second, firstSeen, secondSeen, [forward, back])
      },
      sides: [
        { round in for value in stride(from: 2, through: 40, by: 2) { round.first.value = value } },
        { round in for value in stride(from: 1_002, through: 1_040, by: 2) { round.second.send(value) } },
      ],
      check: { round in
        defer {
          round.firstSeen.cancel()
          round.secondSeen.cancel()
          for token in round.tokens { token.cancel() }
        }
        if round.firstSeen.values.last != round.first.value {
          return "first delivered \(String(describing: round.firstSeen.values.last)) last, value \(round.first.value)"
        }
        if round.secondSeen.values.last != round.second.value {
          return
            "second delivered \(String(describing: round.secondSeen.values.last)) last, value \(round.second.value)"
        }
        let violations = round.firstSeen.violations + round.secondSeen.violations
        return violations.isEmpty ? nil : "\(violations)"
      })
    #expect(problem == nil)
  }

  /// Assignments on two threads racing a completion: each thread's values arrive in the order
  /// it set them, the completion last, and what was delivered last before it was the value at
  /// completion time.
  @Test func assignmentsOnTwoThreadsRacingACompletion() {
    typealias Round = (subject: CurrentValueSubject<Int, Never>, subscriber: TestSubscriber<Int, Never>)
    let problem = race(
      rounds: 5_000,
      setup: { () -> Round in
        let round: Round = (CurrentValueSubject(0), TestSubscriber())
        round.subject.subscribe(round.subscriber)
        return round
      },
      sides: [
        { round in for value in 1...20 { round.subject.value = value } },
        { round in
          for value in 101...110 { round.subject.send(value) }
          round.subject.send(completion: .finished)
        },
      ],
      check: { round in
        defer { round.subscriber.cancel() }
        let values = round.subscriber.values
        let fromFirst = values.filter { $0 >= 1 && $0 <= 20 }
        let fromSecond = values.filter { $0 > 100 }
        if fromFirst != fromFirst.sorted() || fromSecond != Array(101...110) || values.first != 0 {
          return "got \(values)"
        }
        if round.subscriber.events.last != .completion(.finished) { return "got \(round.subscriber.events)" }
        // Assignments after the completion still change `value`. If 110 was set last, 20 came
        // before it and was delivered; if 20 was, it was either delivered last or set after the
        // completion.
        switch round.subject.value {
        case 110: if !values.contains(20) || values.last != 110 { return "value 110, got \(values)" }
        case 20: if values.contains(20) && values.last != 20 { return "value 20, got \(values)" }
        default: return "value \(round.subject.value)"
        }
        if !round.subscriber.violations.isEmpty { return "\(round.subscriber.violations)" }
        return nil
      })
    #expect(problem == nil)
  }
}

// MARK: - Helpers

/// A subscriber that keeps its subscription and never lets go of it itself.
private final class SubscriptionKeeper<Input, Failure: Error>: Subscriber, @unchecked Sendable {
  private(set) var subscription: (any Subscription)?
  private(set) var values: [Input] = []
  private(set) var finished = false
  private let initialDemand: Subscribers.Demand

  init(initialDemand: Subscribers.Demand) {
    self.initialDemand = initialDemand
  }

  func receive(subscription: any Subscription) {
    self.subscription = subscription
    if initialDemand > 0 { subscription.request(initialDemand) }
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    values.append(input)
    return .none
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    finished = true
  }
}

/// A subscriber that runs closures on its subscription and values, and logs its events as text.
private final class CallbackSubscriber<Input, Failure: Error>: Subscriber, @unchecked Sendable {
  private struct State {
    var subscription: (any Subscription)?
    var events: [String] = []
    var insideReceiveSubscription = false
    var valuesInsideReceiveSubscription = 0
  }

  private let state = Locked(State())
  private let onSubscription: (any Subscription) -> Void
  private let onValue: (Input) -> Void

  init(onSubscription: @escaping (any Subscription) -> Void, onValue: @escaping (Input) -> Void = { _ in }) {
    self.onSubscription = onSubscription
    self.onValue = onValue
  }

  var subscription: (any Subscription)? { state.withLock { $0.subscription } }
  var events: [String] { state.withLock { $0.events } }
  var valuesInsideReceiveSubscription: Int { state.withLock { $0.valuesInsideReceiveSubscription } }

  /// Cancels and forgets the subscription.
  func cancel() {
    state.withLock { state -> (any Subscription)? in
      defer { state.subscription = nil }
      return state.subscription
    }?.cancel()
  }

  func receive(subscription: any Subscription) {
    state.withLock {
      $0.subscription = subscription
      $0.events.append("subscription")
      $0.insideReceiveSubscription = true
    }
    onSubscription(subscription)
    state.withLock { $0.insideReceiveSubscription = false }
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    state.withLock {
      $0.events.append("\(input)")
      if $0.insideReceiveSubscription { $0.valuesInsideReceiveSubscription += 1 }
    }
    onValue(input)
    return .none
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    state.withLock {
      if case .finished = completion {
        $0.events.append("finished")
      } else {
        $0.events.append("failed")
      }
      $0.subscription = nil
    }
  }
}

/// A value behind a lock, in a class so that escaping closures and tuples can share it.
private final class LockedBox<Value>: @unchecked Sendable {
  private let state: Locked<Value>

  init(_ value: Value) {
    state = Locked(value)
  }

  func withLock<R>(_ body: (inout Value) -> R) -> R {
    state.withLock { body(&$0) }
  }
}

private struct UncheckedSubscription: @unchecked Sendable {
  let subscription: any Subscription
  init(_ subscription: any Subscription) { self.subscription = subscription }
}

/// A publisher that completes its subscriber without ever sending it a subscription.
private struct CompletesWithoutSubscription: Publisher {
  typealias Output = Int
  typealias Failure = Never
  func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
    subscriber.receive(completion: .finished)
  }
}

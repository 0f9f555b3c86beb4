import ConduitTesting
import Testing

@testable import Conduit

/// The decisions of `merge`, `zip` and `combineLatest`, without threads, publishers or a
/// downstream.
@Suite(.leakChecked)
struct CombiningStateMachineTests {
  typealias MergeMachine = CombiningStateMachine<MergeStrategy<Int>>
  typealias ZipMachine = CombiningStateMachine<ZipStrategy<Slots2<Int, Int>>>
  typealias LatestMachine = CombiningStateMachine<CombineLatestStrategy<Slots2<Int, Int>>>

  /// A machine whose upstreams have all subscribed, with what they were first asked handed over.
  private func subscribed<Strategy>(
    _ strategy: Strategy, upstreams: [SpySubscription]
  ) -> CombiningStateMachine<Strategy> {
    var machine = CombiningStateMachine(strategy: strategy, upstreamCount: upstreams.count)
    for (index, upstream) in upstreams.enumerated() {
      #expect(machine.admits(at: index))
      machine.attach(upstream, at: index)
    }
    machine.takeRequests()?.send()
    return machine
  }

  private func merge(_ upstreams: [SpySubscription]) -> MergeMachine {
    subscribed(MergeStrategy(), upstreams: upstreams)
  }

  private func zip(_ upstreams: [SpySubscription]) -> ZipMachine {
    subscribed(ZipStrategy(slots: Slots2()), upstreams: upstreams)
  }

  private func latest(_ upstreams: [SpySubscription]) -> LatestMachine {
    subscribed(CombineLatestStrategy(slots: Slots2()), upstreams: upstreams)
  }

  /// Upstream `index` delivers `value`.
  private func send<Strategy: CombiningStrategy>(
    _ value: Int, from index: Int, direct: Bool = true, to machine: inout CombiningStateMachine<Strategy>
  ) -> (action: CombiningStateMachine<Strategy>.Action, delivery: CombiningStateMachine<Strategy>.Delivery?) {
    let output = machine.takesValues ? machine.strategy.combine(value, from: index) : nil
    return machine.value(output, from: index, direct: direct)
  }

  // MARK: Merge

  @Test func aMergeAsksEachUpstreamForOneValueAsItSubscribes() {
    let first = SpySubscription()
    let second = SpySubscription()
    _ = merge([first, second])
    #expect(first.requests == [.max(1)])
    #expect(second.requests == [.max(1)])
  }

  @Test func aMergeOutputGoesStraightDownAndAsksItsUpstreamForTheNextValue() {
    let first = SpySubscription()
    let second = SpySubscription()
    var machine = merge([first, second])
    #expect(machine.demand(.max(2), side: nil) == .none)
    #expect(machine.takeRequests() == nil)

    // From the upstream on the stack, the next value is owed; from another, requested.
    let direct = send(1, from: 0, to: &machine)
    #expect(direct.action == .none)
    #expect(direct.delivery?.output == 1)
    #expect(direct.delivery?.next == .owed)
    #expect(machine.demand == .max(1))

    let queued = send(2, from: 1, direct: false, to: &machine)
    #expect(queued.action == .none)
    #expect(queued.delivery == nil)
    let next = machine.next(side: 0)
    #expect(next?.output == 2)
    #expect(next?.next == .request(1))
    #expect(machine.upstreams[1] as? SpySubscription === second)
    #expect(machine.demand == .none)
    #expect(machine.isSettled)
  }

  @Test func anUnlimitedMergeAsksEveryUpstreamForEverythingOnce() {
    let first = SpySubscription()
    var machine = CombiningStateMachine(strategy: MergeStrategy<Int>(), upstreamCount: 2)
    machine.attach(first, at: 0)
    machine.takeRequests()?.send()

    #expect(machine.demand(.unlimited, side: 0) == .unlimited)
    #expect(machine.demand(.unlimited, side: 0) == .none)
    let requests = machine.takeRequests()
    #expect(requests?.ask == .unlimited)
    requests?.send()
    #expect(first.requests == [.max(1)])

    // Asking one value at a time is over, and a late upstream is asked for everything.
    #expect(send(1, from: 0, to: &machine).delivery?.next == CombiningStateMachine<MergeStrategy<Int>>.NextRequest.none)
    let late = SpySubscription()
    machine.attach(late, at: 1)
    machine.takeRequests()?.send()
    #expect(late.requests == [.unlimited])
  }

  @Test func aMergeFinishesWhenEveryUpstreamHasAndNothingWaits() {
    var machine = merge([SpySubscription(), SpySubscription()])
    let sent1 = send(1, from: 0, to: &machine)
    #expect(sent1.action == .none)
    #expect(sent1.delivery == nil)
    #expect(describe(machine.completion(finished: true, at: 0)) == "forget 0")
    #expect(describe(machine.completion(finished: true, at: 1)) == "forget 1, stopping")
    #expect(!machine.isSettled)
    // The completion waits for the output that waits for demand.
    #expect(describe(machine.next(side: nil)) == "nothing")
    #expect(describe(machine.settle()) == "none")
    _ = machine.demand(.max(1), side: nil)
    #expect(describe(machine.next(side: nil)) == "deliver 1")
    #expect(describe(machine.next(side: nil)) == "nothing")
    #expect(describe(machine.settle()) == "finish")
    #expect(describe(machine.settle()) == "none")
    #expect(machine.isSettled)
  }

  @Test func aMergeOfNoUpstreamsFinishesAtOnce() {
    var machine = CombiningStateMachine(strategy: MergeStrategy<Int>(), upstreamCount: 0)
    #expect(describe(machine.noUpstreams()) == "stop upstreams")
    #expect(describe(machine.next(side: nil)) == "nothing")
    #expect(describe(machine.settle()) == "finish")
  }

  @Test func aFailureDropsWhatWaitsAndEndsEverything() {
    var machine = merge([SpySubscription(), SpySubscription()])
    _ = send(1, from: 0, to: &machine)
    #expect(machine.ready.count == 1)
    // A merge cancels the upstream that failed too: it is not forgotten before the others are
    // cancelled.
    #expect(describe(machine.completion(finished: false, at: 1)) == "fail, forgetting none")
    #expect(machine.ready.isEmpty)
    #expect(machine.upstreams.isEmpty)
    let sent2 = send(2, from: 0, to: &machine)
    #expect(sent2.action == .none)
    #expect(sent2.delivery == nil)
    #expect(describe(machine.completion(finished: true, at: 0)) == "none")
    #expect(describe(machine.cancel()) == "none")
    _ = machine.demand(.max(1), side: nil)
    #expect(describe(machine.next(side: nil)) == "nothing")
    #expect(describe(machine.settle()) == "none")
    #expect(!machine.admits(at: 0))
  }

  // MARK: Zip

  @Test func aZipPassesEachRequestToEveryUpstream() {
    let first = SpySubscription()
    let second = SpySubscription()
    var machine = zip([first, second])
    #expect(first.requests.isEmpty)

    #expect(machine.demand(.max(2), side: nil) == .none)
    // The part for the upstream on the stack is returned from its `receive(_:)` instead, and not
    // asked of it again, whichever thread sends the requests.
    #expect(machine.demand(.max(1), side: 1) == .max(1))
    let requests = machine.takeRequests()
    #expect(requests?.ask == .max(3))
    requests?.send()
    #expect(first.requests == [.max(3)])
    #expect(second.requests == [.max(2)])
    #expect(machine.requested == .max(3))
  }

  @Test func anUpstreamThatSubscribesLateIsAskedForWhatTheOthersWereAsked() {
    let first = SpySubscription()
    let late = SpySubscription()
    var machine = CombiningStateMachine(strategy: ZipStrategy(slots: Slots2<Int, Int>()), upstreamCount: 2)
    machine.attach(first, at: 0)
    _ = machine.demand(.max(2), side: nil)
    machine.takeRequests()?.send()
    _ = machine.demand(.max(1), side: nil)
    // Requested before it came: 3; of which 1 is still to be asked of everyone.
    machine.attach(late, at: 1)
    machine.takeRequests()?.send()
    #expect(first.requests == [.max(2), .max(1)])
    #expect(late.requests == [.max(2), .max(1)])
  }

  @Test func zipOutputsWaitForDemandInOrder() {
    var machine = zip([SpySubscription(), SpySubscription()])
    _ = send(1, from: 0, to: &machine)
    _ = send(2, from: 0, to: &machine)
    #expect(describe(send(10, from: 1, to: &machine).delivery) == "nothing")
    #expect(describe(send(20, from: 1, to: &machine).delivery) == "nothing")
    #expect(machine.isSettled)
    _ = machine.demand(.max(1), side: nil)
    #expect(!machine.isSettled)
    #expect(describe(machine.next(side: nil)) == "deliver (1, 10)")
    #expect(describe(machine.next(side: nil)) == "nothing")
    _ = machine.demand(.max(5), side: nil)
    #expect(describe(machine.next(side: nil)) == "deliver (2, 20)")
    #expect(describe(machine.next(side: nil)) == "nothing")
    #expect(describe(machine.settle()) == "none")
  }

  @Test func aZipIsExhaustedByTheValueThatEmptiesAFinishedUpstreamsSlot() {
    var machine = zip([SpySubscription(), SpySubscription()])
    _ = machine.demand(.max(5), side: nil)
    _ = send(1, from: 0, to: &machine)
    #expect(describe(machine.completion(finished: true, at: 0)) == "forget 0")
    // The output this value makes is the last one: it waits in `ready` although nothing waits
    // before it, so that the upstreams are stopped first; then it goes down, then the completion.
    let last = send(10, from: 1, to: &machine)
    #expect(describe(last.action) == "stop upstreams")
    #expect(describe(last.delivery) == "nothing")
    #expect(describe(machine.next(side: 1)) == "deliver (1, 10)")
    #expect(describe(machine.next(side: 1)) == "nothing")
    #expect(describe(machine.settle()) == "finish")
  }

  // MARK: CombineLatest

  @Test func combineLatestDropsWhatNoDemandWouldTake() {
    var machine = latest([SpySubscription(), SpySubscription()])
    _ = machine.demand(.max(1), side: nil)
    machine.takeRequests()?.send()
    _ = send(1, from: 0, to: &machine)
    _ = send(10, from: 1, direct: false, to: &machine)
    _ = send(20, from: 1, direct: false, to: &machine)
    #expect(machine.ready.count == 1)
    #expect(describe(machine.next(side: nil)) == "deliver (1, 10)")
    #expect(describe(machine.next(side: nil)) == "nothing")
  }

  @Test func combineLatestAsksEveryUpstreamItselfAndCancelsOnlyTheOthersOnFailure() {
    var machine = latest([SpySubscription(), SpySubscription()])
    #expect(machine.demand(.max(1), side: 0) == .none)
    #expect(machine.takeRequests()?.ask == .max(1))
    #expect(describe(machine.completion(finished: false, at: 0)) == "fail, forgetting 0")
  }

  // MARK: Subscriptions, cancel, letting go

  @Test func onlyTheFirstSubscriptionOfAnUpstreamStillRunningIsAdmitted() {
    var machine = CombiningStateMachine(strategy: MergeStrategy<Int>(), upstreamCount: 2)
    #expect(machine.admits(at: 0))
    machine.attach(SpySubscription(), at: 0)
    #expect(!machine.admits(at: 0))
    _ = machine.completion(finished: true, at: 1)
    #expect(!machine.admits(at: 1))
  }

  @Test func cancelReleasesOnceAndForgetsEverything() {
    var machine = zip([SpySubscription(), SpySubscription()])
    _ = send(1, from: 0, to: &machine)
    _ = send(2, from: 1, to: &machine)
    #expect(describe(machine.cancel()) == "release")
    #expect(machine.ready.isEmpty)
    #expect(machine.strategy.slots.a.isDrained)
    #expect(describe(machine.cancel()) == "none")
    #expect(!machine.admits(at: 0))
    #expect(machine.demand(.max(1), side: 0) == .none)
    #expect(machine.takeRequests() == nil)
  }

  @Test func requestsTakenWhileTheOwnerCouldNotLetGoAreRestored() {
    var machine = zip([SpySubscription(), SpySubscription()])
    _ = machine.demand(.max(2), side: nil)
    let requests = machine.takeRequests()
    #expect(machine.takeRequests() == nil)
    #expect(machine.isSettled)
    machine.restore(requests!)
    #expect(!machine.isSettled)
    #expect(machine.takeRequests()?.ask == .max(2))
  }
}

/// A short name for an action, for the expectations above.
private func describe<Strategy>(_ action: CombiningStateMachine<Strategy>.Action) -> String {
  switch action {
  case .none: return "none"
  case .stopUpstreams: return "stop upstreams"
  case .forget(let index, let stopping): return "forget \(index)" + (stopping ? ", stopping" : "")
  case .fail(let forgetting): return "fail, forgetting \(forgetting.map(String.init) ?? "none")"
  case .finish: return "finish"
  case .release: return "release"
  }
}

/// A short name for what goes down next, for the expectations above.
private func describe<Output, Strategy>(
  _ delivery: (output: Output, next: CombiningStateMachine<Strategy>.NextRequest)?
) -> String {
  guard let delivery else { return "nothing" }
  return "deliver \(delivery.output)"
}

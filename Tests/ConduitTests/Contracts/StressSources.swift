import Conduit
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A publisher of `offset + 0..<count` that respects demand, for stress tests that need a source
/// which, unlike a subject, never drops a value for lack of demand. Emission is serialized by a
/// drain flag (never calling out under its lock) and happens on whichever thread calls `pump()`
/// and, with `emitsOnRequest`, inside `request`. With `subscribesImmediately` false, the
/// subscriber gets its subscription only from `giveSubscription()`, so that a test can race that
/// moment against other threads.
final class PumpSource: Publisher, Subscription, @unchecked Sendable {
  typealias Output = Int
  typealias Failure = Never

  private struct State {
    var subscriber: AnySubscriber<Int, Never>?
    var demand = Subscribers.Demand.none
    var requested = Subscribers.Demand.none
    var next = 0
    var draining = false
    var again = false
    var cancelled = false
    var finished = false
  }

  private enum Step {
    case value(AnySubscriber<Int, Never>, Int)
    case finish(AnySubscriber<Int, Never>)
    case again
    case stop
  }

  private let state = Locked(State())
  private let count: Int
  private let emitsOnRequest: Bool
  private let subscribesImmediately: Bool
  private let finishes: Bool
  private let offset: Int

  init(count: Int, emitsOnRequest: Bool, subscribesImmediately: Bool = true, finishes: Bool = false, offset: Int = 0) {
    self.count = count
    self.emitsOnRequest = emitsOnRequest
    self.subscribesImmediately = subscribesImmediately
    self.finishes = finishes
    self.offset = offset
  }

  /// Everything asked of this source so far, by `request` and by the subscriber's answers.
  var totalRequested: Subscribers.Demand { withState { $0.requested } }
  var isFinished: Bool { withState { $0.finished } }
  var isCancelled: Bool { withState { $0.cancelled } }
  var isExhausted: Bool { withState { $0.next == count || $0.cancelled } }

  func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
    withState { $0.subscriber = AnySubscriber(subscriber) }
    if subscribesImmediately { subscriber.receive(subscription: self) }
  }

  func giveSubscription() {
    withState { $0.subscriber }?.receive(subscription: self)
  }

  func request(_ demand: Subscribers.Demand) {
    withState {
      $0.demand += demand
      $0.requested += demand
    }
    if emitsOnRequest { pump() }
  }

  func cancel() {
    withState { state in
      state.cancelled = true
      state.subscriber = nil
    }
  }

  /// Sends what the demand allows, and the completion once every value is out if the source
  /// `finishes`. A call that finds another thread sending makes that thread look again instead.
  func pump() {
    let claimed = withState { state -> Bool in
      if state.draining {
        state.again = true
        return false
      }
      state.draining = true
      return true
    }
    guard claimed else { return }
    while true {
      let step = withState { state -> Step in
        if let subscriber = state.subscriber, !state.cancelled {
          if state.next < count, state.demand > 0 {
            state.demand -= 1
            defer { state.next += 1 }
            return .value(subscriber, state.next)
          }
          if state.next == count, finishes, !state.finished {
            state.finished = true
            state.subscriber = nil
            return .finish(subscriber)
          }
        }
        if state.again {
          state.again = false
          return .again
        }
        state.draining = false
        return .stop
      }
      switch step {
      case .value(let subscriber, let value):
        let more = subscriber.receive(offset + value)
        if more > 0 {
          withState {
            $0.demand += more
            $0.requested += more
          }
        }
      case .finish(let subscriber):
        subscriber.receive(completion: .finished)
      case .again:
        continue
      case .stop:
        return
      }
    }
  }

  private func withState<R>(_ body: (inout State) -> R) -> R {
    state.withLock { body(&$0) }
  }
}

/// Records values without a lock of its own: the publisher promises that calls into one
/// subscriber never overlap (DESIGN.md §2.3), and ThreadSanitizer checks that promise here.
/// An atomic in-flight counter notices overlaps in runs without the sanitizer.
///
/// With `cancelAt`, it cancels from inside `receive` once that many values have arrived, and,
/// when its demand is bounded, asks for each next value from inside `receive` through its
/// subscription (re-entrantly) rather than by its return value.
final class StressSubscriber: Subscriber, @unchecked Sendable {
  private let demand: Subscribers.Demand
  private let forbidden: Int?
  private let cancelAt: Int?
  private let received = Atomic<Int>(0)
  private let inFlight = Atomic<Int>(0)
  private let overlapCount = Atomic<Int>(0)
  private let forbiddenSeen = Atomic<Bool>(false)
  private let completion = Atomic<Bool>(false)
  private let receivedAtCancel = Atomic<Int>(-1)
  // Busy work done for each value, to make the subscriber slower than a send.
  private let workPerValue: Int
  private let work = Atomic<Int>(0)
  private let subscription = Locked<(any Subscription)?>(nil)
  // Written by whichever thread delivers (deliveries are serialized); read once they are over.
  private(set) var values: [Int] = []

  init(demand: Subscribers.Demand = .unlimited, forbidden: Int? = nil, workPerValue: Int = 0, cancelAt: Int? = nil) {
    self.demand = demand
    self.forbidden = forbidden
    self.workPerValue = workPerValue
    self.cancelAt = cancelAt
  }

  var count: Int { received.load(ordering: .acquiring) }
  var overlaps: Int { overlapCount.load(ordering: .relaxed) }
  var sawForbidden: Bool { forbiddenSeen.load(ordering: .relaxed) }
  var completed: Bool { completion.load(ordering: .relaxed) }
  var countWhenCancelReturned: Int { receivedAtCancel.load(ordering: .relaxed) }

  func receive(subscription: any Subscription) {
    self.subscription.withLock { $0 = subscription }
    subscription.request(demand)
  }

  func receive(_ input: Int) -> Subscribers.Demand {
    if inFlight.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue != 1 {
      overlapCount.wrappingAdd(1, ordering: .relaxed)
    }
    if input == forbidden { forbiddenSeen.store(true, ordering: .relaxed) }
    for step in 0..<workPerValue { work.wrappingAdd(step & 1, ordering: .relaxed) }
    values.append(input)
    let seen = received.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue
    inFlight.wrappingSubtract(1, ordering: .acquiringAndReleasing)
    if let cancelAt {
      if seen >= cancelAt {
        cancelAndRecord()
      } else if demand != .unlimited {
        subscription.withLock { $0 }?.request(.max(1))
      }
    }
    return .none
  }

  func receive(completion: Subscribers.Completion<Never>) {
    self.completion.store(true, ordering: .relaxed)
  }

  /// Cancels, then notes how many values had arrived by the time `cancel` returned.
  func cancelAndRecord() {
    subscription.withLock { $0 }?.cancel()
    let seen = received.load(ordering: .acquiring)
    _ = receivedAtCancel.compareExchange(expected: -1, desired: seen, ordering: .relaxed)
  }
}

/// Pumps `first` and `second` on a thread each while `requesters` other threads each call
/// `requestOne` `perRequester` times; then pumps both a few more times, so that demand that
/// reached an upstream after its last pump on its thread is met too.
func pumpBothWhileRequestingOneAtATime(
  _ first: PumpSource, _ second: PumpSource, requesters: Int, perRequester: Int,
  requestOne: @escaping @Sendable () -> Void
) {
  let done = Atomic<Int>(0)
  runOnThreads(2 + requesters) { thread in
    switch thread {
    case 0, 1:
      let source = thread == 0 ? first : second
      while done.load(ordering: .acquiring) < requesters { source.pump() }
    default:
      for _ in 0..<perRequester { requestOne() }
      done.wrappingAdd(1, ordering: .releasing)
    }
  }
  for _ in 0..<10 {
    first.pump()
    second.pump()
  }
}

/// Lets a fixed number of threads meet between rounds, spinning rather than sleeping, and giving
/// up the processor every few spins (there may be more threads than processors).
final class SpinBarrier: Sendable {
  private let parties: Int
  private let arrived = Atomic<Int>(0)
  private let generation = Atomic<Int>(0)

  init(parties: Int) {
    self.parties = parties
  }

  func wait() {
    let current = generation.load(ordering: .acquiring)
    if arrived.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue == parties {
      arrived.store(0, ordering: .relaxed)
      generation.wrappingAdd(1, ordering: .releasing)
      return
    }
    spin(until: { generation.load(ordering: .acquiring) != current })
  }
}

/// Spins until `condition` holds, yielding the processor every 16 tries, so that the thread it
/// waits for gets to run on a machine with few cores.
func spin(until condition: () -> Bool) {
  var spins = 0
  while !condition() {
    spins += 1
    if spins % 16 == 0 { sched_yield() }
  }
}

/// Runs `rounds` rounds: thread 0 builds a round with `setup`, then every thread `index` runs
/// `sides[index]` on it at once (after a short, varying spin), then thread 0 runs `check`, which
/// returns a description of what went wrong, if anything. Stops at the first problem and
/// reports it with its round.
final class Racer<Round>: @unchecked Sendable {
  private let setup: () -> Round
  private let sides: [(Round) -> Void]
  private let check: (Round) -> String?
  private let barrier: SpinBarrier
  // Written by thread 0 between barriers, read by the others after them.
  private var current: Round?
  private var problem: String?

  init(setup: @escaping () -> Round, sides: [(Round) -> Void], check: @escaping (Round) -> String?) {
    self.setup = setup
    self.sides = sides
    self.check = check
    barrier = SpinBarrier(parties: sides.count)
  }

  func run(rounds: Int) -> String? {
    runOnThreads(sides.count) { thread in self.runThread(thread, rounds: rounds) }
    return problem
  }

  private func runThread(_ thread: Int, rounds: Int) {
    var seed = UInt64(thread + 1) &* 0x9E37_79B9_7F4A_7C15
    for index in 0..<rounds {
      if thread == 0 { current = setup() }
      barrier.wait()
      let round = current!
      seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      for step in 0..<Int(seed >> 59) { _ = step &* 3 }
      sides[thread](round)
      barrier.wait()
      if thread == 0 {
        if let found = check(round) { problem = "round \(index): \(found)" }
        current = nil
      }
      barrier.wait()
      if problem != nil { return }
    }
  }
}

func race<Round>(
  rounds: Int, setup: @escaping () -> Round, sides: [(Round) -> Void], check: @escaping (Round) -> String?
) -> String? {
  Racer(setup: setup, sides: sides, check: check).run(rounds: rounds)
}

/// Subscribes a `StressSubscriber` through `subscribe` to a subject that two threads send to
/// while two others cancel once values flow, many times over; checks that nothing arrives after
/// the cancel but the value already on its way, that calls never overlap, and that no completion
/// follows the cancel.
func expectCancelRacingValuesStopsDelivery(
  _ subscribe: (PassthroughSubject<Int, Never>, StressSubscriber) -> Void
) {
  for _ in 0..<200 {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = StressSubscriber()
    subscribe(subject, subscriber)
    let sendersDone = Atomic<Int>(0)
    runOnThreads(4) { thread in
      if thread < 2 {
        for index in 0..<500 { subject.send(index) }
        sendersDone.wrappingAdd(1, ordering: .releasing)
        return
      }
      while subscriber.count < 100 && sendersDone.load(ordering: .acquiring) < 2 {}
      subscriber.cancelAndRecord()
    }
    subject.send(completion: .finished)
    #expect(subscriber.count <= subscriber.countWhenCancelReturned + 1)
    #expect(subscriber.overlaps == 0)
    #expect(!subscriber.completed)
  }
}

/// Subscribes, through `subscribe`, a `StressSubscriber` that asks for one value at a time from
/// inside `receive` and cancels from there at the 150th, to a subject two threads send to; checks
/// that delivery stops at the cancel and calls never overlap.
func expectRequestAndCancelFromInsideReceiveStopsAtTheCancel(
  _ subscribe: (PassthroughSubject<Int, Never>, StressSubscriber) -> Void
) {
  for _ in 0..<200 {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = StressSubscriber(demand: .max(1), cancelAt: 150)
    subscribe(subject, subscriber)
    runOnThreads(2) { _ in
      for index in 0..<1_000 { subject.send(index) }
    }
    // Subjects drop what comes without demand: a slow run may not reach the count that cancels.
    subscriber.cancelAndRecord()
    #expect(subscriber.count <= 150)
    #expect(subscriber.overlaps == 0)
    #expect(!subscriber.completed)
  }
}

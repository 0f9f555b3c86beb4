import Conduit
import ConduitTesting
import Dispatch
import Synchronization
import Testing

@Suite(.leakChecked)
struct LeakCheckTests {
  /// Keeps its subscription for as long as it lives, the way a view model does.
  final class Owner {
    var cancellable: AnyCancellable?
    var total = 0

    /// The leak: the sink captures `self` strongly while `self` keeps the sink's token.
    func bindStrongly(to subject: PassthroughSubject<Int, Never>) {
      cancellable = subject.sink { value in self.total += value }
    }

    /// The fix: the sink captures `self` weakly.
    func bindWeakly(to subject: PassthroughSubject<Int, Never>) {
      cancellable = subject.sink { [weak self] value in self?.total += value }
    }
  }

  /// The target of an `assign(to:on:)`.
  final class Thermostat {
    var reading = 0
    var cancellable: AnyCancellable?
  }

  /// Subscribes again on every refresh, the way a screen that reloads does.
  final class Feed {
    var cancellables: [AnyCancellable] = []
    var cancellable: AnyCancellable?
    var received = 0

    /// The leak: every refresh adds a subscription and none is ever removed.
    func refreshPilingUp(from subject: PassthroughSubject<Int, Never>) {
      subject.sink { [weak self] value in self?.received += value }.store(in: &cancellables)
    }

    /// The fix: each refresh replaces the previous subscription, which cancels it.
    func refreshReplacing(from subject: PassthroughSubject<Int, Never>) {
      cancellable = subject.sink { [weak self] value in self?.received += value }
    }
  }

  /// Opens once; every waiter before and after passes.
  actor Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func open() {
      isOpen = true
      for waiter in waiters { waiter.resume() }
      waiters = []
    }

    func wait() async {
      if isOpen { return }
      await withCheckedContinuation { waiters.append($0) }
    }
  }

  struct BodyError: Error {}

  static let sinkName = "Subscribers.Sink<Int, Never>"
  static let subjectSinkName = "SubjectDownstream<Subscribers.Sink<Int, Never>>"
  static let fileID = "ConduitTestingTests/LeakCheckTests.swift"

  // MARK: The check itself

  @Test func returnsTheBodysResult() throws {
    let answer = try withLeakCheck { _ in 42 }
    #expect(answer == 42)
  }

  @Test func rethrowsTheBodysErrorWithoutCheckingForLeaks() {
    let subject = PassthroughSubject<Int, Never>()
    var kept: AnyCancellable?
    #expect(throws: BodyError.self) {
      try withLeakCheck(timeout: .milliseconds(20)) { _ in
        kept = subject.sink { _ in }
        throw BodyError()
      }
    }
    #expect(kept != nil)
    kept = nil
  }

  @Test func waitsForTeardownOnAnotherThread() throws {
    try withLeakCheck { _ in
      let subject = PassthroughSubject<Int, Never>()
      let token = subject.sink { _ in }
      let bodyEnding = DispatchSemaphore(value: 0)
      DispatchQueue.global().async {
        bodyEnding.wait()
        token.cancel()
      }
      bodyEnding.signal()
    }
  }

  // MARK: 1. A sink that captures its owner strongly

  @Test func catchesSinkCapturingItsOwnerStrongly() {
    let subject = PassthroughSubject<Int, Never>()
    weak var escaped: Owner?
    var trackedLine = 0
    let failure = #expect(throws: LeakCheckFailure.self) {
      try withLeakCheck(timeout: .milliseconds(20)) { tracker in
        let (owner, line) = (tracker.track(Owner()), #line)
        trackedLine = line
        escaped = owner
        owner.bindStrongly(to: subject)
        subject.send(5)
        #expect(owner.total == 5)
      }
    }
    #expect(
      failure?.survivors.map(\.typeName) == [
        "ConduitTestingTests.LeakCheckTests.Owner", Self.subjectSinkName, Self.sinkName,
      ])
    #expect(failure?.survivors.first?.fileID == Self.fileID)
    #expect(failure?.survivors.first?.line == trackedLine)
    #expect(failure?.survivors.dropFirst().allSatisfy { $0.fileID == nil && $0.line == nil } == true)
    #expect(failure?.growth == nil)

    // Only the cycle keeps the owner alive; breaking it frees everything.
    #expect(escaped != nil)
    escaped?.cancellable?.cancel()
    #expect(escaped == nil)
  }

  @Test func passesSinkCapturingItsOwnerWeakly() throws {
    let subject = PassthroughSubject<Int, Never>()
    try withLeakCheck { tracker in
      let owner = tracker.track(Owner())
      owner.bindWeakly(to: subject)
      subject.send(2)
      subject.send(3)
      #expect(owner.total == 5)
    }
  }

  // MARK: 2. assign(to:on:) whose target keeps the token

  @Test func catchesAssignWhoseTargetKeepsTheToken() {
    let subject = PassthroughSubject<Int, Never>()
    weak var escaped: Thermostat?
    let failure = #expect(throws: LeakCheckFailure.self) {
      try withLeakCheck(timeout: .milliseconds(20)) { tracker in
        let thermostat = tracker.track(Thermostat())
        escaped = thermostat
        thermostat.cancellable = subject.assign(to: \.reading, on: thermostat)
        subject.send(21)
        #expect(thermostat.reading == 21)
      }
    }
    let assignName = "Subscribers.Assign<ConduitTestingTests.LeakCheckTests.Thermostat, Int>"
    #expect(
      failure?.survivors.map(\.typeName) == [
        "ConduitTestingTests.LeakCheckTests.Thermostat", "SubjectDownstream<\(assignName)>", assignName,
      ])

    escaped?.cancellable?.cancel()
    #expect(escaped == nil)
  }

  @Test func passesAssignWhoseTokenIsKeptElsewhere() throws {
    let subject = PassthroughSubject<Int, Never>()
    try withLeakCheck { tracker in
      let thermostat = tracker.track(Thermostat())
      var tokens = Set<AnyCancellable>()
      subject.assign(to: \.reading, on: thermostat).store(in: &tokens)
      subject.send(19)
      #expect(thermostat.reading == 19)
      #expect(tokens.count == 1)
    }
  }

  @Test func passesAssignCancelledInTime() throws {
    let subject = PassthroughSubject<Int, Never>()
    try withLeakCheck { tracker in
      let thermostat = tracker.track(Thermostat())
      thermostat.cancellable = subject.assign(to: \.reading, on: thermostat)
      subject.send(18)
      thermostat.cancellable?.cancel()
      subject.send(30)
      #expect(thermostat.reading == 18)
    }
  }

  @Test func passesAssignWhosePublisherCompletes() throws {
    let subject = PassthroughSubject<Int, Never>()
    try withLeakCheck { tracker in
      let thermostat = tracker.track(Thermostat())
      thermostat.cancellable = subject.assign(to: \.reading, on: thermostat)
      subject.send(17)
      subject.send(completion: .finished)
      #expect(thermostat.reading == 17)
    }
  }

  // MARK: 3. Cancellables that pile up on every refresh

  @Test func growthCheckCatchesCancellablesPilingUp() {
    let subject = PassthroughSubject<Int, Never>()
    let feed = Feed()
    let failure = #expect(throws: LeakCheckFailure.self) {
      try withGrowthCheck(iterations: 10) { _ in feed.refreshPilingUp(from: subject) }
    }
    #expect(failure?.growth == "10 alive after iteration 5, 20 after iteration 10")
    #expect(
      failure?.survivors.map(\.typeName)
        == Array(repeating: Self.subjectSinkName, count: 10) + Array(repeating: Self.sinkName, count: 10))

    // Every piled-up subscription still receives.
    subject.send(1)
    #expect(feed.received == 10)
    feed.cancellables.removeAll()
    subject.send(1)
    #expect(feed.received == 10)
  }

  @Test func growthCheckPassesWhenEachRefreshReplacesThePrevious() throws {
    let subject = PassthroughSubject<Int, Never>()
    let feed = Feed()
    try withGrowthCheck(iterations: 10) { _ in feed.refreshReplacing(from: subject) }
    subject.send(1)
    #expect(feed.received == 1)
    feed.cancellable = nil
  }

  @Test func constantSurvivorsAreNotGrowth() throws {
    let subject = PassthroughSubject<Int, Never>()
    var longLived: AnyCancellable?
    var received = 0
    try withGrowthCheck(iterations: 10) { _ in
      if longLived == nil { longLived = subject.sink { received += $0 } }
      subject.send(1)
    }
    #expect(received == 10)
    longLived = nil
  }

  @Test func survivorsThatFillUpDuringWarmUpAreNotGrowth() throws {
    let subject = PassthroughSubject<Int, Never>()
    var cache: [AnyCancellable] = []
    try withGrowthCheck(iterations: 10) { _ in
      if cache.count < 3 { cache.append(subject.sink { _ in }) }
    }
    #expect(cache.count == 3)
    cache.removeAll()
  }

  // MARK: 4. A subscription kept alive outside the checked scope

  @Test func catchesSubscriptionKeptOutsideTheCheckedScope() {
    let subject = PassthroughSubject<Int, Never>()
    var kept: AnyCancellable?
    var received: [Int] = []
    let failure = #expect(throws: LeakCheckFailure.self) {
      try withLeakCheck(timeout: .milliseconds(20)) { _ in
        kept = subject.sink { received.append($0) }
      }
    }
    #expect(failure?.survivors.map(\.typeName) == [Self.subjectSinkName, Self.sinkName])

    // It really is alive: it still receives.
    subject.send(7)
    #expect(received == [7])
    #expect(kept != nil)
    kept = nil
    subject.send(8)
    #expect(received == [7])
  }

  @Test func passesSubscriptionCancelledBeforeTheBodyReturns() throws {
    let subject = PassthroughSubject<Int, Never>()
    var kept: AnyCancellable?
    try withLeakCheck { _ in
      kept = subject.sink { _ in }
      kept?.cancel()
    }
    #expect(kept != nil)
  }

  // MARK: 5. The discarded cancellable

  @Test func discardedCancellableIsCancelledAtOnceAndReceivesNothing() throws {
    try withLeakCheck { _ in
      let subject = PassthroughSubject<Int, Never>()
      var received: [Int] = []
      _ = subject.sink { received.append($0) }
      subject.send(1)
      #expect(received.isEmpty)

      let kept = subject.sink { received.append($0) }
      subject.send(2)
      #expect(received == [2])
      kept.cancel()
    }
  }

  @Test func discardedCancellableOfSynchronousPublisherHasAlreadyReceivedEverything() throws {
    try withLeakCheck { _ in
      var received: [Int] = []
      _ = [1, 2, 3].publisher.sink { received.append($0) }
      #expect(received == [1, 2, 3])
    }
  }

  // MARK: Async forms

  @Test func asyncCheckReturnsTheBodysResultAndPasses() async throws {
    let subject = PassthroughSubject<Int, Never>()
    let total = try await withLeakCheck { tracker in
      let owner = tracker.track(Owner())
      owner.bindWeakly(to: subject)
      await Task.yield()
      subject.send(4)
      return owner.total
    }
    #expect(total == 4)
  }

  @Test func asyncCheckCatchesSinkCapturingItsOwnerStrongly() async {
    let subject = PassthroughSubject<Int, Never>()
    weak var escaped: Owner?
    let failure = await #expect(throws: LeakCheckFailure.self) {
      try await withLeakCheck(timeout: .milliseconds(20)) { tracker in
        let owner = tracker.track(Owner())
        escaped = owner
        await Task.yield()
        owner.bindStrongly(to: subject)
      }
    }
    #expect(
      failure?.survivors.map(\.typeName) == [
        "ConduitTestingTests.LeakCheckTests.Owner", Self.subjectSinkName, Self.sinkName,
      ])
    escaped?.cancellable = nil
    #expect(escaped == nil)
  }

  @Test func asyncCheckRethrowsTheBodysError() async {
    await #expect(throws: BodyError.self) {
      try await withLeakCheck { _ in
        await Task.yield()
        throw BodyError()
      }
    }
  }

  @Test func asyncGrowthCheckCatchesCancellablesPilingUp() async {
    let subject = PassthroughSubject<Int, Never>()
    let feed = Feed()
    let failure = await #expect(throws: LeakCheckFailure.self) {
      try await withGrowthCheck(iterations: 4) { _ in
        await Task.yield()
        feed.refreshPilingUp(from: subject)
      }
    }
    #expect(failure?.growth == "4 alive after iteration 2, 8 after iteration 4")
    #expect(failure?.survivors.count == 8)
    feed.cancellables.removeAll()
  }

  @Test func asyncGrowthCheckPassesWhenEachRefreshReplacesThePrevious() async throws {
    let subject = PassthroughSubject<Int, Never>()
    let feed = Feed()
    try await withGrowthCheck(iterations: 10) { _ in
      await Task.yield()
      feed.refreshReplacing(from: subject)
    }
    subject.send(3)
    #expect(feed.received == 3)
    feed.cancellable = nil
  }

  // MARK: Isolation and attribution

  @Test func parallelChecksSeeOnlyTheirOwnObjects() async throws {
    let keeper = Keeper()
    let leakingInside = Gate()
    let cleanInside = Gate()
    let leakingJudged = Gate()

    @Sendable func runLeakingCheck() async -> LeakCheckFailure? {
      var failure: LeakCheckFailure?
      do {
        try await withLeakCheck(timeout: .milliseconds(20)) { _ in
          let subject = PassthroughSubject<Int, Never>()
          keeper.keep(subject.sink { _ in })
          await leakingInside.open()
          await cleanInside.wait()
        }
      } catch {
        failure = error as? LeakCheckFailure
      }
      await leakingJudged.open()
      return failure
    }

    @Sendable func runCleanCheck() async throws {
      try await withLeakCheck { _ in
        let subject = PassthroughSubject<String, Never>()
        let tokens = (1...3).map { _ in subject.sink { _ in } }
        await cleanInside.open()
        await leakingInside.wait()
        // Keep this check's objects alive while the other check judges its own.
        await leakingJudged.wait()
        for token in tokens { token.cancel() }
      }
    }

    async let leaking = runLeakingCheck()
    async let clean: Void = runCleanCheck()
    let failure = await leaking
    // The clean check passes although the other check's leak is alive all along.
    try await clean
    #expect(failure?.survivors.map(\.typeName) == [Self.subjectSinkName, Self.sinkName])
    keeper.releaseAll()
  }

  @Test func attributesSubscriptionsMadeOnAnotherThreadToASubjectCreatedInTheBody() {
    let keeper = Keeper()
    let failure = #expect(throws: LeakCheckFailure.self) {
      try withLeakCheck(timeout: .milliseconds(20)) { _ in
        let subject = PassthroughSubject<Int, Never>()
        let subscribed = DispatchSemaphore(value: 0)
        DispatchQueue(label: "LeakCheckTests.other").async {
          keeper.keep(subject.sink { _ in })
          subscribed.signal()
        }
        subscribed.wait()
      }
    }
    // The sink was created on a thread the check does not run on; the subject's
    // per-subscriber state is attributed through the subject.
    #expect(failure?.survivors.map(\.typeName) == [Self.subjectSinkName])
    keeper.releaseAll()
  }

  @Test func attributesObjectsCreatedOnAnotherThreadForASubscriberCreatedInTheBody() {
    let keeper = Keeper()
    let subject = PassthroughSubject<Int, Never>()
    let failure = #expect(throws: LeakCheckFailure.self) {
      try withLeakCheck(timeout: .milliseconds(20)) { _ in
        nonisolated(unsafe) let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
        let subscribed = DispatchSemaphore(value: 0)
        DispatchQueue(label: "LeakCheckTests.other").async {
          subject.subscribe(sink)
          keeper.keep(AnyCancellable(sink))
          subscribed.signal()
        }
        subscribed.wait()
      }
    }
    #expect(failure?.survivors.map(\.typeName) == [Self.subjectSinkName, Self.sinkName])
    keeper.releaseAll()
  }

  @Test func passesWhenAnotherThreadCancelsWhatItSubscribed() throws {
    try withLeakCheck { _ in
      let subject = PassthroughSubject<Int, Never>()
      let done = DispatchSemaphore(value: 0)
      DispatchQueue(label: "LeakCheckTests.other").async {
        let token = subject.sink { _ in }
        subject.send(1)
        token.cancel()
        done.signal()
      }
      done.wait()
    }
  }

  // MARK: The census the checks read

  @Test func censusLiveObjectsRisesAndFallsWithASubscription() {
    // The census is process-wide and other tests run in parallel, so look for a quiet moment:
    // a run in which nothing else created or freed an object.
    let subject = PassthroughSubject<Int, Never>()
    var observed: [(rise: Int, fall: Int)] = []
    for _ in 0..<1000 {
      let before = Census.liveObjects
      let token = subject.sink { _ in }
      let during = Census.liveObjects
      token.cancel()
      let after = Census.liveObjects
      observed.append((during - before, during - after))
      if during - before == 2 && during - after == 2 { break }
    }
    #expect(observed.last.map { $0.rise == 2 && $0.fall == 2 } == true, "rise, fall per attempt: \(observed)")
  }
}

import Conduit

/// A scheduler whose clock moves only when a test moves it: work scheduled on it runs, in
/// virtual time, inside ``advance(by:)``, ``advance(to:)`` and ``run(maxActions:fileID:filePath:line:column:)``.
///
/// This is an extension to Combine, which has no test scheduler. Give the code under test a
/// `TestScheduler` (directly, or erased with `eraseToAnyScheduler()`) in place of a real one,
/// and tests of `debounce`, `throttle`, `delay`, `timeout` or a retry with a back-off take no
/// wall-clock time and give the same result on every run.
///
/// ```swift
/// let scheduler = TestScheduler<TestTime, Never>(now: TestTime(0))
/// var values: [String] = []
/// let cancellable = queries
///   .debounce(for: .milliseconds(300), scheduler: scheduler)
///   .sink { values.append($0) }
/// queries.send("c"); queries.send("co"); queries.send("con")
/// scheduler.advance(by: .milliseconds(299))
/// #expect(values.isEmpty)
/// scheduler.advance(by: .milliseconds(1))
/// #expect(values == ["con"])
/// ```
///
/// For `DispatchQueue`'s time types, write `TestSchedulerOf<DispatchQueue>`.
///
/// Semantics:
/// - Work runs in the order it is due; work due at the same time runs in the order it was
///   scheduled. Work scheduled with ``schedule(options:_:)`` is due ``now``; work scheduled
///   after a date already past is due at once, and does not move the clock back.
/// - While an action runs, ``now`` is the time it was due. Work an action schedules inside the
///   window being advanced runs in the same advance: a retry after a delay, or each firing of a
///   repeating action (advanced by ten intervals, a repeating action fires ten times). When the
///   advance returns, ``now`` is the target.
/// - Actions run on the thread that advances the clock, one at a time. Scheduling is safe from
///   any thread, including from inside an action; the scheduler never holds its lock while an
///   action runs.
/// - Scheduling and running an action cost O(log n) with n actions pending.
public final class TestScheduler<SchedulerTimeType: Strideable, SchedulerOptions>: Scheduler
where SchedulerTimeType.Stride: SchedulerTimeIntervalConvertible {
  /// A repeating action, kept by identifier so that cancelling it releases the action at once;
  /// the queue then holds only a stale entry, skipped when it comes due. A one-off action that
  /// can be withdrawn (a sleeper of the clock) is kept the same way, with `repeats` false.
  private struct Repetition {
    var action: () -> Void
    let repeats: Bool
    let interval: SchedulerTimeType.Stride
    let scheduledAt: SchedulerTimeType
    let firstDue: SchedulerTimeType
    var firings = 0
  }

  private struct State {
    var now: SchedulerTimeType
    var queue = ScheduledActionQueue<SchedulerTimeType>()
    var nextSequence: UInt64 = 0
    var scheduledActionCount = 0
    var performedActionCount = 0
    var repetitions: [UInt64: Repetition] = [:]
    /// Entries of cancelled repetitions still in the queue.
    var staleEntryCount = 0

    mutating func enqueue(due: SchedulerTimeType, _ work: ScheduledActionQueue<SchedulerTimeType>.Work) {
      queue.insert(due: due, sequence: nextSequence, work)
      nextSequence &+= 1
    }

    /// Drops the stale entries at the front of the queue.
    mutating func dropStaleEntries() {
      while let id = queue.firstRepetition, repetitions[id] == nil {
        _ = queue.removeFirst()
        staleEntryCount -= 1
      }
    }

    /// Takes the next action due no later than `limit` (any action, for `nil`), moves the clock
    /// to its due time and, for a repeating action, schedules its next firing.
    mutating func takeNextAction(dueBy limit: SchedulerTimeType?) -> (() -> Void)? {
      dropStaleEntries()
      guard let due = queue.firstDue else { return nil }
      if let limit, limit < due { return nil }
      let entry = queue.removeFirst()!
      if now < entry.due { now = entry.due }
      performedActionCount += 1
      switch entry.work {
      case .once(let action):
        return action
      case .repetition(let id):
        repetitions[id]!.firings += 1
        let repetition = repetitions[id]!
        guard repetition.repeats else {
          repetitions[id] = nil
          return repetition.action
        }
        enqueue(due: entry.due.advanced(by: repetition.interval), .repetition(id))
        return repetition.action
      }
    }
  }

  // Guarded by its own lock.
  private let state: Locked<State>
  let creation: SourceCodeLocation

  /// Creates a test scheduler whose clock starts at `now`.
  ///
  /// The place it is created is named in the failures it reports.
  ///
  /// ```swift
  /// let scheduler = TestScheduler<TestTime, Never>(now: TestTime(0))
  /// ```
  public init(
    now: SchedulerTimeType, fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line,
    column: UInt = #column
  ) {
    state = Locked(State(now: now))
    creation = SourceCodeLocation(fileID: fileID, filePath: filePath, line: line, column: column)
  }

  /// The scheduler's current virtual time: while an action runs, the time it was due.
  ///
  /// ```swift
  /// scheduler.advance(by: .seconds(2))
  /// #expect(scheduler.now == start.advanced(by: .seconds(2)))
  /// ```
  public var now: SchedulerTimeType { state.withLock { $0.now } }

  /// The minimum tolerance: zero, since virtual time is exact.
  ///
  /// ```swift
  /// #expect(scheduler.minimumTolerance == .zero)
  /// ```
  public var minimumTolerance: SchedulerTimeType.Stride { .zero }

  /// How many actions have been scheduled on this scheduler since it was created, whether they
  /// have run or not; a repeating action counts once.
  ///
  /// For tests of what an operator schedules:
  ///
  /// ```swift
  /// let cancellable = subject.delay(for: .seconds(1), scheduler: scheduler).sink { _ in }
  /// for value in 1...100 { subject.send(value) }
  /// #expect(scheduler.scheduledActionCount == 100)  // one action per value
  /// ```
  public var scheduledActionCount: Int { state.withLock { $0.scheduledActionCount } }

  /// How many actions are waiting to run; a repeating action that has not been cancelled counts
  /// once.
  ///
  /// ```swift
  /// let timer = scheduler.schedule(after: scheduler.now, interval: .seconds(1)) {}
  /// #expect(scheduler.pendingActionCount == 1)
  /// timer.cancel()
  /// #expect(scheduler.pendingActionCount == 0)
  /// ```
  public var pendingActionCount: Int { state.withLock { $0.queue.count - $0.staleEntryCount } }

  /// How many times an action has run on this scheduler; each firing of a repeating action
  /// counts.
  ///
  /// ```swift
  /// _ = scheduler.schedule(after: scheduler.now, interval: .seconds(1)) {}
  /// scheduler.advance(by: .seconds(9))
  /// #expect(scheduler.performedActionCount == 10)
  /// ```
  public var performedActionCount: Int { state.withLock { $0.performedActionCount } }

  /// The time the next pending action is due, or `nil` when nothing is pending.
  ///
  /// ```swift
  /// subject.send("a")  // into `debounce(for: .milliseconds(300), scheduler: scheduler)`
  /// #expect(scheduler.nextDueTime == scheduler.now.advanced(by: .milliseconds(300)))
  /// ```
  public var nextDueTime: SchedulerTimeType? {
    state.withLock { state in
      state.dropStaleEntries()
      return state.queue.firstDue
    }
  }

  /// Schedules `action` to run at the current virtual time, when the clock is next advanced
  /// (even by zero).
  ///
  /// ```swift
  /// scheduler.schedule { print("runs in the next advance") }
  /// scheduler.advance()
  /// ```
  public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
    state.withLock { state in
      state.scheduledActionCount += 1
      state.enqueue(due: state.now, .once(action))
    }
  }

  /// Schedules `action` to run when the clock reaches `date`; the tolerance is ignored.
  ///
  /// ```swift
  /// scheduler.schedule(after: scheduler.now.advanced(by: .seconds(1))) { print("a virtual second later") }
  /// scheduler.advance(by: .seconds(1))
  /// ```
  public func schedule(
    after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
    _ action: @escaping () -> Void
  ) {
    state.withLock { state in
      state.scheduledActionCount += 1
      state.enqueue(due: date, .once(action))
    }
  }

  /// Schedules `action` to run when the clock reaches `date`, then every `interval`, until the
  /// returned cancellable is cancelled (or released, since it is an `AnyCancellable`). Cancelling
  /// releases `action` at once. The tolerance is ignored.
  ///
  /// `interval` must be positive: a repeating action with no interval would keep virtual time
  /// from ever moving on.
  ///
  /// ```swift
  /// var ticks = 0
  /// let timer = scheduler.schedule(after: scheduler.now, interval: .seconds(1)) { ticks += 1 }
  /// scheduler.advance(by: .seconds(9))
  /// #expect(ticks == 10)
  /// timer.cancel()
  /// ```
  public func schedule(
    after date: SchedulerTimeType, interval: SchedulerTimeType.Stride, tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?, _ action: @escaping () -> Void
  ) -> any Cancellable {
    guard interval > .zero else {
      preconditionFailure(
        "TestScheduler.schedule(after:interval:): the interval is \(interval), but a repeating action needs a positive interval, or virtual time could never move past it. Schedule a one-off action with schedule(after:) instead, or pass a positive interval."
      )
    }
    let id = state.withLock { state in
      state.scheduledActionCount += 1
      let id = state.nextSequence
      state.repetitions[id] = Repetition(
        action: action, repeats: true, interval: interval, scheduledAt: state.now, firstDue: date)
      state.enqueue(due: date, .repetition(id))
      return id
    }
    return AnyCancellable { [weak self] in self?.cancelRepetition(id) }
  }

  /// Schedules `action` to run once when the clock reaches `date`, under an identifier that
  /// ``withdraw(_:)`` takes back: a clock's sleeper, whose action must go at once when its task is
  /// cancelled rather than wait in the queue until it is due.
  func scheduleWithdrawable(after date: SchedulerTimeType, _ action: @escaping () -> Void) -> UInt64 {
    state.withLock { state in
      state.scheduledActionCount += 1
      let id = state.nextSequence
      state.repetitions[id] = Repetition(
        action: action, repeats: false, interval: .zero, scheduledAt: state.now, firstDue: date)
      state.enqueue(due: date, .repetition(id))
      return id
    }
  }

  /// Takes back an action scheduled with ``scheduleWithdrawable(after:_:)`` that has not run.
  func withdraw(_ id: UInt64) {
    cancelRepetition(id)
  }

  private func cancelRepetition(_ id: UInt64) {
    let removed = state.withLock { state in
      let removed = state.repetitions.removeValue(forKey: id)
      if removed != nil { state.staleEntryCount += 1 }
      return removed
    }
    // The action is released here, after the lock: its captures' deinits may schedule.
    withExtendedLifetime(removed) {}
  }

  /// Moves the clock forward by `stride`, running, in order, every action due by then,
  /// including those that the actions schedule within the window.
  ///
  /// With no argument, runs what is due now. A negative stride stops the test with a
  /// precondition failure: virtual time never moves backwards. Threads may advance the same
  /// scheduler at once: each runs what is due by its own target, every action runs once, and
  /// the clock ends at the latest target.
  ///
  /// ```swift
  /// scheduler.schedule(after: scheduler.now.advanced(by: .seconds(1))) { print("ran") }
  /// scheduler.advance(by: .milliseconds(999))  // nothing yet
  /// scheduler.advance(by: .milliseconds(1))  // prints "ran"
  /// ```
  public func advance(by stride: SchedulerTimeType.Stride = .zero) {
    advanceClock(to: target(advancingBy: stride))
  }

  /// The time an advance by `stride` moves the clock to; a negative stride stops the test.
  func target(advancingBy stride: SchedulerTimeType.Stride) -> SchedulerTimeType {
    guard stride >= .zero else {
      preconditionFailure(
        "TestScheduler.advance(by: \(stride)): the stride is negative, and virtual time cannot move backwards. Advance by zero or a positive stride; to start again from an earlier time, create a new TestScheduler."
      )
    }
    // No check against the clock: another thread's advance may move it past `target` meanwhile,
    // and then only what is due by `target` and not yet run is left to run.
    return state.withLock { $0.now.advanced(by: stride) }
  }

  /// Moves the clock forward to `date`, running, in order, every action due by then, including
  /// those that the actions schedule within the window.
  ///
  /// A date before ``now`` stops the test with a precondition failure: virtual time never moves
  /// backwards.
  ///
  /// ```swift
  /// let start = scheduler.now
  /// scheduler.schedule(after: start.advanced(by: .seconds(5))) { print("ran") }
  /// scheduler.advance(to: start.advanced(by: .seconds(5)))  // prints "ran"
  /// ```
  public func advance(to date: SchedulerTimeType) {
    checkAdvance(to: date)
    advanceClock(to: date)
  }

  /// Stops the test if `date` is before the clock: virtual time never moves backwards.
  func checkAdvance(to date: SchedulerTimeType) {
    let now = self.now
    guard now <= date else {
      preconditionFailure(
        "TestScheduler.advance(to: \(date)): that is before the scheduler's current time, \(now), and virtual time cannot move backwards. Advance to the current time or later; to start again from an earlier time, create a new TestScheduler."
      )
    }
  }

  private func advanceClock(to target: SchedulerTimeType) {
    while let action = takeNextAction(dueBy: target) {
      action()
    }
    moveClock(notBefore: target)
  }

  /// Takes the next action due no later than `limit` (any action, for `nil`) and moves the clock
  /// to its due time, for the caller to run.
  func takeNextAction(dueBy limit: SchedulerTimeType?) -> (() -> Void)? {
    state.withLock { $0.takeNextAction(dueBy: limit) }
  }

  /// Moves the clock to `target` unless another advance has already moved it further.
  func moveClock(notBefore target: SchedulerTimeType) {
    state.withLock { state in
      if state.now < target { state.now = target }
    }
  }

  /// Runs every pending action, and the actions they schedule, until nothing is left, moving
  /// the clock to each action's due time.
  ///
  /// Repeating work never runs out, so `run` stops after `maxActions` actions. If work is still
  /// pending then, it fails the current test (through `Issue.record` under Swift Testing,
  /// `XCTFail` under XCTest), naming the repeating actions still scheduled, and returns: the
  /// test run reports the failure instead of hanging, and the other tests go on. To run
  /// repeating work, ``advance(by:)`` by a finite window instead, or cancel it first.
  ///
  /// ```swift
  /// scheduler.schedule(after: scheduler.now.advanced(by: .seconds(30))) { print("a") }
  /// scheduler.schedule(after: scheduler.now.advanced(by: .seconds(60))) { print("b") }
  /// scheduler.run()  // prints "a", then "b"; now is 60 seconds later
  /// ```
  public func run(
    maxActions: Int = 100_000, fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) {
    precondition(maxActions > 0, "TestScheduler.run(maxActions: \(maxActions)): maxActions must be positive")
    var performed = 0
    while performed < maxActions, let action = takeNextAction(dueBy: nil) {
      action()
      performed += 1
    }
    guard performed == maxActions, let report = unfinishedRunReport(maxActions: maxActions) else { return }
    reportTestFailure(report, at: SourceCodeLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }

  /// Why `run` stopped, when work is still pending after `maxActions` actions.
  func unfinishedRunReport(maxActions: Int) -> String? {
    let (pending, repetitions, now) = state.withLock { state in
      (state.queue.count - state.staleEntryCount, state.repetitions.values.filter(\.repeats), state.now)
    }
    guard pending > 0 else { return nil }
    var lines = [
      "TestScheduler.run() stopped after \(maxActions) actions with \(pending) still pending, at time \(now) (scheduler created at \(creation))."
    ]
    if repetitions.isEmpty {
      lines.append(
        "None of them repeats, so actions keep scheduling more (a retry that never succeeds?). Advance by a finite window with advance(by:), or pass a larger maxActions if the work does end."
      )
    } else {
      lines.append(
        "run() ends when nothing is pending, which never happens while a repeating action is scheduled; \(repetitions.count) repeating action(s) are:"
      )
      for repetition in repetitions.sorted(by: { $0.firstDue < $1.firstDue }).prefix(10) {
        lines.append(
          "  - every \(repetition.interval) from \(repetition.firstDue), scheduled at time \(repetition.scheduledAt), fired \(repetition.firings) times"
        )
      }
      if repetitions.count > 10 { lines.append("  - … and \(repetitions.count - 10) more") }
      lines.append(
        "Advance by a finite window with advance(by:) instead, or cancel the repeating work before calling run()."
      )
    }
    return lines.joined(separator: "\n")
  }
}

// Sendable only when its times and strides are: it keeps the clock, each action's due time and
// each repeating action's interval, which any thread reads or changes under `state`'s lock.
// Options are never kept.
extension TestScheduler: Sendable where SchedulerTimeType: Sendable, SchedulerTimeType.Stride: Sendable {}

/// A test scheduler with the time and options types of `S`: `TestSchedulerOf<DispatchQueue>`.
///
/// This is an extension to Combine (see ``TestScheduler``).
///
/// ```swift
/// let scheduler = TestSchedulerOf<DispatchQueue>(now: .init(.init(uptimeNanoseconds: 1)))
/// ```
public typealias TestSchedulerOf<S: Scheduler> = TestScheduler<S.SchedulerTimeType, S.SchedulerOptions>

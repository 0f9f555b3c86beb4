import Conduit
import Dispatch

extension TestScheduler
where SchedulerTimeType == DispatchQueue.SchedulerTimeType, SchedulerOptions == DispatchQueue.SchedulerOptions {
  /// Moves the clock forward by `stride`, running, in order, every action due by then, the
  /// pipelines' and the ``clock``'s sleepers' alike, and waits after each for the work it started
  /// to settle.
  ///
  /// This is an extension to Combine: the async form of ``advance(by:)``, for tests of async code
  /// that uses ``clock`` beside pipelines on this scheduler. After each action, it waits until
  /// every task that the action woke (a task asleep on ``clock``, a `for await` loop over `values`
  /// that a send resumed, a task that such a task created) has finished or is suspended again (on
  /// this scheduler's clock, on demand inside `values` or `AsyncSequence.publisher`, or anywhere
  /// else), then takes the next action; so what a woken task schedules within the window runs in
  /// the same advance, in order. It waits on a signal from the woken work, not on a number of
  /// `Task.yield()`s.
  ///
  /// A woken task that is still running after `settlingTimeout` of real time (it blocks its
  /// thread on a lock, a semaphore, synchronous I/O, or never stops) fails the current test,
  /// naming the tasks this advance woke from the clock (give tasks names with
  /// `Task.immediate(name:)`), and the advance goes on without waiting for it. A task that
  /// suspends on something other than this scheduler (a real `Task.sleep`, a network call)
  /// counts as settled: when that resumes it, the advance has returned.
  ///
  /// Work isolated to the main actor resumes on the main executor, which the advance does not
  /// wait for: keep the code under test off the main actor, or await what it does on the main
  /// actor after the advance.
  ///
  /// In async code, `advance(by:)` on a scheduler with `DispatchQueue`'s time types is this
  /// form, so it takes `await`; the synchronous form stays for synchronous code.
  ///
  /// ```swift
  /// let scheduler = DispatchQueue.test
  /// let model = Model(clock: scheduler.clock, scheduler: scheduler.eraseToAnyScheduler())
  /// let task = Task.immediate { await model.load() }  // sleeps a second, then sends
  /// await scheduler.advance(by: .seconds(2))
  /// #expect(model.result == "loaded")  // the task and the debounce after it have run
  /// ```
  public func advance(
    by stride: SchedulerTimeType.Stride = .zero, settlingTimeout: Duration = .seconds(2),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
  ) async {
    let location = SourceCodeLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    await runSettling(
      "advance(by:)", dueBy: target(advancingBy: stride), maxActions: nil, settlingTimeout: settlingTimeout,
      at: location)
  }

  /// Moves the clock forward to `date`, running, in order, every action due by then, and waits
  /// after each for the work it started to settle.
  ///
  /// This is an extension to Combine: the async form of ``advance(to:)``, which waits as
  /// ``advance(by:settlingTimeout:fileID:filePath:line:column:)`` does. A date before ``now``
  /// stops the test with a precondition failure.
  ///
  /// ```swift
  /// let deadline = scheduler.now.advanced(by: .seconds(5))
  /// let task = Task.immediate { try await scheduler.clock.sleep(until: .init(deadline)) }
  /// await scheduler.advance(to: deadline)  // the task has finished
  /// ```
  public func advance(
    to date: SchedulerTimeType, settlingTimeout: Duration = .seconds(2), fileID: StaticString = #fileID,
    filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
  ) async {
    checkAdvance(to: date)
    let location = SourceCodeLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    await runSettling(
      "advance(to:)", dueBy: date, maxActions: nil, settlingTimeout: settlingTimeout, at: location)
  }

  /// Runs every pending action, and the actions they and the tasks they wake schedule, until
  /// nothing is left, waiting after each action for the work it started to settle.
  ///
  /// This is an extension to Combine: the async form of
  /// ``run(maxActions:fileID:filePath:line:column:)``, which stops after `maxActions` actions and
  /// fails the test if work is still pending then, and which waits as
  /// ``advance(by:settlingTimeout:fileID:filePath:line:column:)`` does.
  ///
  /// ```swift
  /// let task = Task.immediate {
  ///   try await scheduler.clock.sleep(for: .seconds(30))
  ///   try await scheduler.clock.sleep(for: .seconds(30))
  /// }
  /// await scheduler.run()  // both sleeps are over; now is a minute later
  /// ```
  public func run(
    maxActions: Int = 100_000, settlingTimeout: Duration = .seconds(2), fileID: StaticString = #fileID,
    filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
  ) async {
    precondition(maxActions > 0, "TestScheduler.run(maxActions: \(maxActions)): maxActions must be positive")
    let location = SourceCodeLocation(fileID: fileID, filePath: filePath, line: line, column: column)
    let performed = await runSettling(
      "run()", dueBy: nil, maxActions: maxActions, settlingTimeout: settlingTimeout, at: location)
    guard performed == maxActions, let report = unfinishedRunReport(maxActions: maxActions) else { return }
    reportTestFailure(report, at: location)
  }

  /// Runs the actions due by `target` (all of them, for `nil`), at most `maxActions`, each with
  /// this thread marked for a new settling executor, and waits for that executor to settle after
  /// each; returns how many ran.
  @discardableResult
  private func runSettling(
    _ operation: String, dueBy target: SchedulerTimeType?, maxActions: Int?, settlingTimeout: Duration,
    at location: SourceCodeLocation
  ) async -> Int {
    let settling = SettlingExecutor.isAvailable ? SettlingExecutor() : nil
    var waits = settling != nil
    var performed = 0
    while maxActions.map({ performed < $0 }) ?? true, let action = takeNextAction(dueBy: target) {
      if let settling {
        settling.withThreadMarked(action)
      } else {
        action()
      }
      performed += 1
      guard waits, let settling else { continue }
      if await !settling.waitUntilSettled(timeout: settlingTimeout) {
        waits = false
        reportTestFailure(unsettledReport(operation, settlingTimeout, settling.wokenTasks), at: location)
      }
    }
    if let target { moveClock(notBefore: target) }
    return performed
  }

  private func unsettledReport(_ operation: String, _ timeout: Duration, _ wokenTasks: [String]) -> String {
    var lines = [
      "TestScheduler.\(operation): work that this advance woke was still running after \(timeout) of real time, so the advance went on without waiting for it (scheduler created at \(creation))."
    ]
    if wokenTasks.isEmpty {
      lines.append(
        "It woke no task from the scheduler's clock; a task that a pipeline action resumed or created is still running."
      )
    } else {
      lines.append("Tasks it woke from the scheduler's clock:")
      lines += wokenTasks.map { "  - \($0)" }
    }
    lines.append(
      "A woken task must finish or wait again (on this scheduler's clock, or on demand in values or AsyncSequence.publisher) for the advance to know it is done; one that blocks its thread or waits on real time never settles. Pass a larger settlingTimeout if the work does end."
    )
    return lines.joined(separator: "\n")
  }
}

import Foundation

/// A run loop is a scheduler: time operators and `receive(on:)` take one, and their work runs on
/// the run loop's thread while it runs in the default mode.
///
/// ```swift
/// results
///   .debounce(for: .milliseconds(300), scheduler: RunLoop.main)
///   .sink { show($0) }
/// ```
///
/// The actions are not required to be `@Sendable`, as in Combine: handing an action to a run
/// loop hands it over, and the caller must not touch what the action uses while it may run there.
extension RunLoop: Scheduler {
  /// This scheduler's definition of the current moment in time: `Date()`.
  public var now: SchedulerTimeType { SchedulerTimeType(Date()) }

  /// The minimum tolerance allowed by the scheduler: zero, as in Combine.
  public var minimumTolerance: SchedulerTimeType.Stride { SchedulerTimeType.Stride(0) }

  /// Performs the action on this run loop the next time it runs in the default mode.
  ///
  /// As in Combine, the action is performed as a block (`perform(_:)`); the run loop is woken so
  /// that a loop asleep until its next timer runs it at once.
  public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
    let item = ScheduledWorkItem(runsOnce: true, action)
    perform(inModes: [.default]) { item.run() }
    wakeUp()
  }

  /// Performs the action on this run loop, in the default mode, no earlier than `date`.
  ///
  /// As in Combine, the action runs from a non-repeating `Timer` added to the run loop, whose
  /// tolerance is `tolerance`.
  public func schedule(
    after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
    _ action: @escaping () -> Void
  ) {
    let item = ScheduledWorkItem(runsOnce: true, action)
    let timer = Timer(fire: date.date, interval: 0, repeats: false) { _ in item.run() }
    timer.tolerance = tolerance.timeInterval
    add(timer, forMode: .default)
  }

  /// Performs the action on this run loop, in the default mode, at `date` and then every
  /// `interval`, until the returned `Cancellable` is cancelled.
  ///
  /// As in Combine, the action runs from a repeating `Timer` added to the run loop, and the
  /// returned value is an `AnyCancellable`: cancelling it, or letting it go, invalidates the
  /// timer and releases `action` at once.
  ///
  /// ```swift
  /// let ticks = RunLoop.main.schedule(after: RunLoop.main.now, interval: .seconds(1)) { print("tick") }
  /// // …
  /// ticks.cancel()
  /// ```
  public func schedule(
    after date: SchedulerTimeType, interval: SchedulerTimeType.Stride, tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?, _ action: @escaping () -> Void
  ) -> any Cancellable {
    let timer = RunLoopRepeatingTimer(
      runLoop: self, start: date.date, interval: interval.timeInterval, tolerance: tolerance.timeInterval,
      action: action)
    return AnyCancellable(timer)
  }

  /// Wakes this run loop if it sleeps, so that it looks at its performed blocks.
  ///
  /// `perform(_:)` alone leaves a sleeping loop asleep until its next timer or source fires.
  /// Foundation on Linux keeps `CFRunLoopWakeUp` out of reach; adding a timer that is due now
  /// rearms the loop's timer and so wakes it, and the timer does nothing when it fires.
  func wakeUp() {
    add(Timer(fire: Date(), interval: 0, repeats: false) { _ in }, forMode: .default)
  }
}

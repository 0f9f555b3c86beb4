import Dispatch
import Foundation

/// An operation queue is a scheduler: time operators and `receive(on:)` take one, and their work
/// runs as operations on the queue.
///
/// ```swift
/// results
///   .debounce(for: .milliseconds(300), scheduler: OperationQueue.main)
///   .receive(on: OperationQueue.main)
///   .sink { show($0) }
/// ```
///
/// As in Combine, delayed work is an operation added to the queue at once, which becomes ready
/// at its date: `waitUntilAllOperationsAreFinished()` waits for it, and `operationCount` counts
/// it. A Dispatch timer makes it ready, so that no run loop needs to run for it (Combine and
/// OpenCombine use the same idea).
///
/// The actions are not required to be `@Sendable`, as in Combine: handing an action to a queue
/// hands it over, and the caller must not touch what the action uses while it may run there.
extension OperationQueue: Scheduler {
  /// This scheduler's definition of the current moment in time: `Date()`.
  public var now: SchedulerTimeType { SchedulerTimeType(Date()) }

  /// The minimum tolerance allowed by the scheduler: zero, as in Combine.
  public var minimumTolerance: SchedulerTimeType.Stride { SchedulerTimeType.Stride(0) }

  /// Performs the action on this queue, as a `BlockOperation`, at the next possible opportunity.
  public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
    let item = ScheduledWorkItem(runsOnce: false, action)
    addOperation(BlockOperation { item.run() })
  }

  /// Performs the action on this queue no earlier than `date`.
  ///
  /// The operation joins the queue at once and becomes ready at `date`. As in Combine, the
  /// tolerance is not used.
  public func schedule(
    after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
    _ action: @escaping () -> Void
  ) {
    addOperation(DelayedOperation(due: date.date, work: .action(action)))
  }

  /// Performs the action on this queue at `date`, then every `interval`, until the returned
  /// `Cancellable` is cancelled.
  ///
  /// Each run is an operation of its own, added to the queue when the one before has run. The
  /// returned value is an `AnyCancellable`, as in Combine: cancelling it, or letting it go,
  /// cancels the waiting operation and releases `action` at once. As in Combine, the tolerance
  /// is not used.
  ///
  /// ```swift
  /// let ticks = queue.schedule(after: queue.now, interval: .seconds(1)) { print("tick") }
  /// // …
  /// ticks.cancel()
  /// ```
  public func schedule(
    after date: SchedulerTimeType, interval: SchedulerTimeType.Stride, tolerance: SchedulerTimeType.Stride,
    options: SchedulerOptions?, _ action: @escaping () -> Void
  ) -> any Cancellable {
    let repetition = OperationRepetition(queue: self, interval: interval.timeInterval, action: action)
    let first = repetition.start(due: date.date)
    addOperation(first)
    return AnyCancellable(repetition)
  }
}

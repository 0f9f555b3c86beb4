import Dispatch

/// A dispatch queue is a scheduler: time operators and `receive(on:)` take one.
///
/// ```swift
/// results
///   .debounce(for: .milliseconds(300), scheduler: DispatchQueue.global())
///   .receive(on: DispatchQueue.main)
///   .sink { show($0) }
/// ```
///
/// The actions are not required to be `@Sendable`, as in Combine: handing an action to a queue
/// hands it over, and the caller must not touch what the action uses while it may run there.
extension DispatchQueue: Scheduler {
  /// This scheduler's definition of the current moment in time: `DispatchTime.now()`.
  public var now: SchedulerTimeType { SchedulerTimeType(.now()) }

  /// The minimum tolerance allowed by the scheduler: zero, as in Combine.
  public var minimumTolerance: SchedulerTimeType.Stride { .nanoseconds(0) }

  /// Performs the action on this queue at the next possible opportunity, asynchronously.
  ///
  /// The options' quality of service and flags apply to the work item; when they name a group,
  /// the action runs as part of it.
  public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
    let options = options ?? SchedulerOptions()
    // Sound: the caller hands `action` over to this queue, which runs it once, after `async`
    // returns and after everything the caller did before (Dispatch orders the two); the
    // scheduler contract is that the action runs on the scheduler, not on the caller's thread.
    // Cast, not wrapped: a wrapping closure is one more allocation per scheduled action
    // (Benchmarks: "receive(on:) a serial DispatchQueue, one producer, per value").
    let handedOver = unsafeBitCast(action, to: (@Sendable () -> Void).self)
    async(group: options.group, qos: options.qos, flags: options.flags, execute: handedOver)
  }

  /// Performs the action on this queue no earlier than `date`.
  ///
  /// As in Combine, the tolerance and the options' group are not used; the options' quality of
  /// service and flags apply to the work item.
  public func schedule(
    after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
    _ action: @escaping () -> Void
  ) {
    let options = options ?? SchedulerOptions()
    // Sound for the reason given in `schedule(options:_:)`.
    let handedOver = UncheckedSendable(value: action)
    asyncAfter(deadline: date.dispatchTime, qos: options.qos, flags: options.flags) { handedOver.value() }
  }

  /// Performs the action on this queue at `date`, then every `interval`, with `tolerance` as
  /// the timer's leeway, until the returned `Cancellable` is cancelled.
  ///
  /// The returned value is an `AnyCancellable`, as in Combine: cancelling it, or letting it go,
  /// stops the timer and releases `action` at once. Cancelling again does nothing. As in
  /// Combine, the options' quality of service and flags apply to each run; their group is not
  /// used.
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
    let timer = DispatchRepeatingTimer(
      queue: self, start: date, interval: interval, tolerance: tolerance, options: options ?? SchedulerOptions(),
      action: action)
    return AnyCancellable(cancelling: timer)
  }
}

/// The timer behind `DispatchQueue.schedule(after:interval:tolerance:options:_:)`: a
/// `DispatchSourceTimer` whose event handler reaches the action through this object, so that
/// cancelling releases the action at once rather than when Dispatch gets round to dropping the
/// handler, and nothing refers back to the object (the handler holds it weakly).
final class DispatchRepeatingTimer: Cancellable {
  // Immutable; a dispatch source may be cancelled from any thread.
  private let source: any DispatchSourceTimer
  // Guarded by its own lock: the action, until the first cancel takes it out.
  private let action: Locked<(() -> Void)?>
  let census: CensusToken

  init(
    queue: DispatchQueue, start: DispatchQueue.SchedulerTimeType, interval: DispatchQueue.SchedulerTimeType.Stride,
    tolerance: DispatchQueue.SchedulerTimeType.Stride, options: DispatchQueue.SchedulerOptions,
    action: @escaping () -> Void
  ) {
    census = CensusToken(DispatchRepeatingTimer.self)
    self.action = Locked(action)
    source = DispatchSource.makeTimerSource(queue: queue)
    source.setEventHandler(qos: options.qos, flags: options.flags) { [weak self] in self?.fire() }
    source.schedule(deadline: start.dispatchTime, repeating: interval.timeInterval, leeway: tolerance.timeInterval)
    source.resume()
  }

  deinit {
    // Only reached after `cancel()`, through `AnyCancellable`; cancelling a source twice is fine.
    source.cancel()
  }

  private func fire() {
    // The action is called after the lock, and may cancel the timer from inside.
    guard let action = action.withLock({ $0 }) else { return }
    action()
  }

  func cancel() {
    source.cancel()
    // Released once `exchange` has returned, after the lock: what the action captured may cancel
    // or schedule again in its deinit.
    action.exchange(nil)
  }
}

import Synchronization

extension Publishers {
  /// A connectable publisher that repeatedly emits its scheduler's current time, on the
  /// scheduler, at a given interval.
  ///
  /// An extension to Combine, whose only timer publisher is Foundation's `Timer.TimerPublisher`
  /// over a run loop: this one runs on any scheduler, so a server has a periodic publisher
  /// without Foundation, and a test drives it in virtual time with `TestScheduler`.
  ///
  /// As with `Timer.TimerPublisher`, nothing happens until `connect()` (or `autoconnect()`);
  /// every subscriber then receives the same ticks, and a tick that a subscriber has no demand
  /// for is dropped for that subscriber. Cancelling what `connect()` returns stops the timer.
  ///
  /// ```swift
  /// let cancellable = DispatchQueue.main
  ///   .timerPublisher(every: .seconds(1))
  ///   .autoconnect()
  ///   .sink { print("tick at \($0)") }
  /// ```
  public final class Timer<Context: Scheduler>: ConnectablePublisher, @unchecked Sendable {
    /// The kind of values published by this publisher: the scheduler's time at each tick.
    public typealias Output = Context.SchedulerTimeType
    /// The kind of errors this publisher might publish.
    public typealias Failure = Never

    /// The interval between ticks.
    public let interval: Context.SchedulerTimeType.Stride
    /// The tolerance the scheduler may allow each tick.
    public let tolerance: Context.SchedulerTimeType.Stride
    /// The scheduler the timer runs on.
    public let scheduler: Context
    /// The scheduler options the ticks are scheduled with.
    public let options: Context.SchedulerOptions?

    // Thread-safe by itself.
    @usableFromInline
    let ticks = PassthroughSubject<Context.SchedulerTimeType, Never>()
    // Guarded by its own lock: the running timer, if connected.
    @usableFromInline
    let connection = Locked<(any Cancellable)?>(nil)

    /// Creates a timer publisher; it starts ticking when connected.
    public init(
      interval: Context.SchedulerTimeType.Stride, tolerance: Context.SchedulerTimeType.Stride? = nil,
      scheduler: Context, options: Context.SchedulerOptions? = nil
    ) {
      self.interval = interval
      self.tolerance = tolerance ?? scheduler.minimumTolerance
      self.scheduler = scheduler
      self.options = options
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
      ticks.receive(subscriber: subscriber)
    }

    /// Starts the timer: the first tick comes one interval from now. Connecting a timer that is
    /// running returns a cancellable for the same run.
    public func connect() -> any Cancellable {
      let started = connection.withLock { running -> Bool in
        guard running == nil else { return false }
        running = Subscriptions.empty
        return true
      }
      if started {
        let scheduler = scheduler
        let ticks = ticks
        let timer = scheduler.schedule(
          after: scheduler.now.advanced(by: interval), interval: interval, tolerance: tolerance, options: options
        ) {
          ticks.send(scheduler.now)
        }
        let kept = connection.withLock { running -> Bool in
          // A cancel that came while the timer was being scheduled left `running` nil.
          guard running != nil else { return false }
          running = timer
          return true
        }
        if !kept { timer.cancel() }
      }
      return AnyCancellable { self.disconnect() }
    }

    /// Stops the timer, if it runs.
    func disconnect() {
      connection.withLock { $0.take() }?.cancel()
    }
  }
}

extension Scheduler {
  /// A connectable publisher that emits this scheduler's `now` every `interval`.
  ///
  /// An extension to Combine (see `Publishers.Timer`).
  ///
  /// ```swift
  /// let cancellable = queue.timerPublisher(every: .milliseconds(100))
  ///   .autoconnect()
  ///   .sink { _ in poll() }
  /// ```
  public func timerPublisher(
    every interval: SchedulerTimeType.Stride, tolerance: SchedulerTimeType.Stride? = nil,
    options: SchedulerOptions? = nil
  ) -> Publishers.Timer<Self> {
    Publishers.Timer(interval: interval, tolerance: tolerance, scheduler: self, options: options)
  }
}

import Conduit

extension Publishers {
  /// A connectable publisher that repeatedly emits its scheduler's current time, on the
  /// scheduler, at a given interval.
  ///
  /// An extension to Combine, whose only timer publisher is Foundation's `Timer.TimerPublisher`
  /// over a run loop: this one runs on any scheduler, so a server has a periodic publisher
  /// without Foundation, and a test drives it in virtual time with `TestScheduler`. It lives in
  /// the opt-in `ConduitSchedulers` module because combine-schedulers and CombineExt declare a
  /// `Publishers.Timer` of their own, which `import Conduit` must not make ambiguous.
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
  public final class Timer<Context: Scheduler>: ConnectablePublisher {
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
    // Guarded by its own lock.
    let connection = Locked(TimerConnection())

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
    /// running returns a cancellable for the same run; cancelling what an earlier run's
    /// `connect()` returned does nothing to a later run.
    public func connect() -> any Cancellable {
      let (run, starts) = connection.withLock { $0.connect() }
      if starts {
        let scheduler = scheduler
        let ticks = ticks
        let timer = scheduler.schedule(
          after: scheduler.now.advanced(by: interval), interval: interval, tolerance: tolerance, options: options
        ) {
          ticks.send(scheduler.now)
        }
        connection.withLock { $0.started(run, timer) }?.cancel()
      }
      return AnyCancellable { self.disconnect(run) }
    }

    func disconnect(_ run: UInt64) {
      connection.withLock { $0.disconnect(run) }?.cancel()
    }
  }
}

// Sendable only when its scheduler and the scheduler's times, strides and options are: it keeps
// them, and every subscriber, on any thread, receives the times it sends. Whether it is connected
// is guarded by `connection`'s lock.
extension Publishers.Timer: Sendable
where
  Context: Sendable, Context.SchedulerTimeType: Sendable, Context.SchedulerTimeType.Stride: Sendable,
  Context.SchedulerOptions: Sendable
{}

/// Whether a `Publishers.Timer` is connected, and which run of its timer is the current one.
///
/// Each connection that starts the timer is a new run, numbered; what `connect()` returns stops
/// its own run only, so that the cancellable of a run that ended earlier does nothing to a later
/// one. The timer's cancellable leaves through the caller, to be cancelled after the lock.
struct TimerConnection {
  /// The number of the latest run.
  private(set) var run: UInt64 = 0
  private(set) var isConnected = false
  /// The current run's timer, once the scheduler has returned it.
  private var timer: (any Cancellable)?

  /// A connection: the run it joins, and whether it starts that run (none was connected).
  mutating func connect() -> (run: UInt64, starts: Bool) {
    guard !isConnected else { return (run, false) }
    isConnected = true
    run &+= 1
    return (run, true)
  }

  /// The scheduler returned run `started`'s timer: kept while that run is current, otherwise
  /// returned to be cancelled (its connection was cancelled while the timer was scheduled).
  mutating func started(_ started: UInt64, _ timer: any Cancellable) -> (any Cancellable)? {
    guard isConnected, started == run else { return timer }
    self.timer = timer
    return nil
  }

  /// A cancel of what connected run `ended`: returns its timer to cancel, `nil` when that run has
  /// already ended.
  mutating func disconnect(_ ended: UInt64) -> (any Cancellable)? {
    guard isConnected, ended == run else { return nil }
    isConnected = false
    var stopped: (any Cancellable)?
    swap(&stopped, &timer)
    return stopped
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

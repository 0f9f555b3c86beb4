import Synchronization

extension Publishers {
  /// A publisher that delays delivery of elements and completion to the downstream receiver.
  ///
  /// Each element, and the completion (a failure too), is scheduled on `scheduler` for `interval`
  /// after it arrives, as in Combine, and goes down in the order upstream sent it. Requests and
  /// cancellation go straight upstream; the subscription goes down at once.
  ///
  /// ```swift
  /// let cancellable = [1, 2, 3].publisher
  ///   .delay(for: .seconds(1), scheduler: DispatchQueue.main)
  ///   .sink { print($0) }   // 1, 2, 3, a second later
  /// ```
  public struct Delay<Upstream: Publisher, Context: Scheduler>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher that this publisher receives elements from.
    public let upstream: Upstream

    /// The amount of time to delay.
    public let interval: Context.SchedulerTimeType.Stride

    /// The allowed tolerance in firing delayed events.
    public let tolerance: Context.SchedulerTimeType.Stride

    /// The scheduler to deliver the delayed events.
    public let scheduler: Context

    /// Options relevant to the scheduler's behavior.
    public let options: Context.SchedulerOptions?

    /// Creates a publisher that delays delivery of elements and completion to the downstream
    /// receiver.
    public init(
      upstream: Upstream, interval: Context.SchedulerTimeType.Stride, tolerance: Context.SchedulerTimeType.Stride,
      scheduler: Context, options: Context.SchedulerOptions? = nil
    ) {
      self.upstream = upstream
      self.interval = interval
      self.tolerance = tolerance
      self.scheduler = scheduler
      self.options = options
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(
        ScheduledDeliveryInner(
          downstream: subscriber, scheduler: scheduler, delay: (interval, tolerance), options: options))
    }
  }
}

extension Publisher {
  /// Delays delivery of all output to the downstream receiver by a specified amount of time on a
  /// particular scheduler.
  ///
  /// The completion is delayed too, a failure included.
  ///
  /// ```swift
  /// let cancellable = taps
  ///   .delay(for: .milliseconds(500), scheduler: DispatchQueue.main)
  ///   .sink { print("tapped half a second ago") }
  /// ```
  ///
  /// - Parameters:
  ///   - interval: The amount of time to delay.
  ///   - tolerance: The allowed tolerance in delivering delayed events; by default the
  ///     scheduler's `minimumTolerance`.
  ///   - scheduler: The scheduler to deliver the delayed events.
  ///   - options: Options relevant to the scheduler's behavior.
  public func delay<S: Scheduler>(
    for interval: S.SchedulerTimeType.Stride, tolerance: S.SchedulerTimeType.Stride? = nil, scheduler: S,
    options: S.SchedulerOptions? = nil
  ) -> Publishers.Delay<Self, S> {
    Publishers.Delay(
      upstream: self, interval: interval, tolerance: tolerance ?? scheduler.minimumTolerance, scheduler: scheduler,
      options: options)
  }
}

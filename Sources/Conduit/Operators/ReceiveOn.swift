import Synchronization

extension Publishers {
  /// A publisher that delivers elements to its downstream subscriber on a specific scheduler.
  ///
  /// Each value and the completion is handed to `scheduler` separately, as in Combine, and goes
  /// down when the scheduler runs it, in the order upstream sent them. Requests and
  /// cancellation go straight upstream, on the caller's thread; so does the subscription, which
  /// the downstream receives on the thread that subscribes.
  ///
  /// Calls into the downstream never overlap, even on a concurrent scheduler: a scheduled run
  /// that finds another still delivering leaves its element to it.
  ///
  /// ```swift
  /// let cancellable = work
  ///   .subscribe(on: backgroundQueue)
  ///   .receive(on: DispatchQueue.main)
  ///   .sink { label.text = $0 }
  /// ```
  public struct ReceiveOn<Upstream: Publisher, Context: Scheduler>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// The scheduler the publisher uses to deliver elements.
    public let scheduler: Context

    /// Scheduler options used to customize element delivery.
    public let options: Context.SchedulerOptions?

    /// Creates a publisher that delivers elements to its downstream subscriber on a specific
    /// scheduler.
    @inlinable
    public init(upstream: Upstream, scheduler: Context, options: Context.SchedulerOptions?) {
      self.upstream = upstream
      self.scheduler = scheduler
      self.options = options
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(
        ReceiveOnInner(downstream: subscriber, scheduler: scheduler, delay: nil, options: options))
    }
  }
}

extension Publisher {
  /// Specifies the scheduler on which to receive elements from the publisher.
  ///
  /// Use it to perform work, such as updating a user interface, on a given queue: values and
  /// the completion reach the subscriber through `scheduler`, in order.
  ///
  /// ```swift
  /// let cancellable = results
  ///   .receive(on: DispatchQueue.main)
  ///   .sink { print($0) }
  /// ```
  @inlinable
  public func receive<S: Scheduler>(
    on scheduler: S, options: S.SchedulerOptions? = nil
  ) -> Publishers.ReceiveOn<Self, S> {
    Publishers.ReceiveOn(upstream: self, scheduler: scheduler, options: options)
  }
}

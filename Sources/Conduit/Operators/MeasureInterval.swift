import Synchronization

extension Publishers {
  /// A publisher that measures and emits the time interval between events received from an
  /// upstream publisher.
  ///
  /// The first element is measured from the moment of the subscription; each later one from the
  /// element before it, by the scheduler's clock (`now`). Elements go down on the thread upstream
  /// sends them; demand the subscriber returns is requested of upstream, as Combine does.
  ///
  /// ```swift
  /// let cancellable = taps
  ///   .measureInterval(using: DispatchQueue.main)
  ///   .sink { print("\($0.timeInterval) since the previous tap") }
  /// ```
  public struct MeasureInterval<Upstream: Publisher, Context: Scheduler>: Publisher {
    /// The kind of values published by this publisher: the time since the previous element.
    public typealias Output = Context.SchedulerTimeType.Stride
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// The scheduler used for tracking the timing of events.
    public let scheduler: Context

    /// Creates a publisher that measures and emits the time interval between events received
    /// from an upstream publisher.
    public init(upstream: Upstream, scheduler: Context) {
      self.upstream = upstream
      self.scheduler = scheduler
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(
        MeasureIntervalInner<Upstream.Output, S, Context>(downstream: subscriber, scheduler: scheduler))
    }
  }
}

extension Publisher {
  /// Measures and emits the time interval between events received from an upstream publisher.
  ///
  /// ```swift
  /// let cancellable = [1, 2, 3].publisher
  ///   .measureInterval(using: ImmediateScheduler.shared)
  ///   .sink { print($0) }
  /// ```
  ///
  /// - Parameters:
  ///   - scheduler: A scheduler to use for tracking the timing of events.
  ///   - options: Options that customize the delivery of elements; unused, as in Combine.
  public func measureInterval<S: Scheduler>(
    using scheduler: S, options: S.SchedulerOptions? = nil
  ) -> Publishers.MeasureInterval<Self, S> {
    Publishers.MeasureInterval(upstream: self, scheduler: scheduler)
  }
}

/// The decisions of `measureInterval`: the time of the previous event, and whether values
/// still flow.
struct MeasureIntervalStateMachine<Time: Strideable> {
  var upstream: (any Subscription)?
  /// When the subscription arrived or the previous element did; `nil` before the subscription
  /// and after the end.
  var last: Time?
  var ended = false

  init() {}

  /// Upstream's subscription, arriving at `now`: whether it is kept.
  mutating func receive(subscription: any Subscription, at now: Time) -> Bool {
    guard upstream == nil, !ended else { return false }
    upstream = subscription
    last = now
    return true
  }

  /// An element arrived at `now`: the interval to send, and the upstream to ask for more, or
  /// `nil` once the subscription has ended.
  mutating func receiveValue(at now: Time) -> (interval: Time.Stride, upstream: (any Subscription)?)? {
    guard let previous = last else { return nil }
    last = now
    return (previous.distance(to: now), upstream)
  }

  /// Upstream completed or the downstream cancelled: the upstream, forgotten, if the
  /// subscription was running.
  mutating func end() -> (any Subscription)?? {
    guard !ended, last != nil else { return nil }
    ended = true
    last = nil
    return .some(upstream.take())
  }
}

/// The subscription behind `measureInterval(using:options:)`.
final class MeasureIntervalInner<Input, Downstream: Subscriber, Context: Scheduler>: Subscriber, Subscription,
  CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, CensusScoped
where Downstream.Input == Context.SchedulerTimeType.Stride {
  typealias Failure = Downstream.Failure

  // Guarded by its own lock.
  let state = Locked(MeasureIntervalStateMachine<Context.SchedulerTimeType>())
  // Called by upstream's calls only, which never overlap; released when the subscription ends.
  var downstream: Downstream?
  let scheduler: Context
  let census: CensusToken

  var description: String { "MeasureInterval" }
  var playgroundDescription: Any { description }
  var customMirror: Mirror { Mirror(self, children: [:]) }
  var censusScope: CensusScope? { census.scope }

  init(downstream: Downstream, scheduler: Context) {
    census = CensusToken(MeasureIntervalInner.self, inheritingFrom: downstream)
    self.downstream = downstream
    self.scheduler = scheduler
  }

  func receive(subscription: any Subscription) {
    let now = scheduler.now
    guard state.withLock({ $0.receive(subscription: subscription, at: now) }) else {
      subscription.cancel()
      return
    }
    downstream?.receive(subscription: self)
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    // The clock is read outside the lock (the scheduler is the caller's code), and only while
    // the subscription runs, as in Combine.
    guard state.withLock({ $0.last != nil }) else { return .none }
    let now = scheduler.now
    guard let (interval, upstream) = state.withLock({ $0.receiveValue(at: now) }) else { return .none }
    let more = downstream?.receive(interval) ?? .none
    if more > 0 { upstream?.request(more) }
    return .none
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    guard state.withLock({ $0.end() }) != nil else { return }
    downstream.take()?.receive(completion: completion)
  }

  func request(_ demand: Subscribers.Demand) {
    state.withLock { $0.upstream }?.request(demand)
  }

  func cancel() {
    guard let upstream = state.withLock({ $0.end() }) else { return }
    upstream?.cancel()
  }
}

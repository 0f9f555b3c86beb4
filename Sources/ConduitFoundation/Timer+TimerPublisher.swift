import Conduit
import Foundation

extension Timer {
  /// Returns a publisher that repeatedly emits the current date on the given interval.
  ///
  /// The publisher is connectable: connect it, or use `autoconnect()` to connect with the first
  /// subscriber, and the timer starts; cancel the connection to stop it.
  ///
  /// ```swift
  /// let ticks = Timer.publish(every: 1, on: .main, in: .common)
  ///   .autoconnect()
  ///   .sink { date in print("tick at", date) }
  /// ```
  ///
  /// As in Combine, `tolerance` is not passed on: the publisher's ``TimerPublisher/tolerance`` is
  /// `nil`. Create a ``TimerPublisher`` directly to give one.
  ///
  /// - Parameters:
  ///   - interval: The time interval on which to publish events, in seconds.
  ///   - tolerance: Not used, as in Combine.
  ///   - runLoop: The run loop on which the timer runs.
  ///   - mode: The run loop mode in which to run the timer.
  ///   - options: Scheduler options passed to the timer; defaults to `nil`.
  /// - Returns: A publisher that repeatedly emits the current date on the given interval.
  public static func publish(
    every interval: TimeInterval, tolerance: TimeInterval? = nil, on runLoop: RunLoop, in mode: RunLoop.Mode,
    options: RunLoop.SchedulerOptions? = nil
  ) -> TimerPublisher {
    TimerPublisher(interval: interval, runLoop: runLoop, mode: mode, options: options)
  }

  /// A publisher that repeatedly emits the current date on a given interval.
  ///
  /// Each ``connect()`` starts a timer of its own on ``runLoop`` in ``mode``; every tick sends
  /// one `Date` to each subscriber that has demand (a subscriber without demand misses the tick,
  /// as in Combine). Cancelling a connection invalidates its timer and ends every subscription,
  /// without a completion, as in Combine; a subscriber that cancels leaves the timer running for
  /// the others. With `autoconnect()`, the last subscriber that cancels stops the timer.
  ///
  /// ```swift
  /// let publisher = Timer.TimerPublisher(interval: 0.5, runLoop: .main, mode: .default)
  /// let ticks = publisher.sink { print($0) }
  /// let connection = publisher.connect()
  /// // …
  /// connection.cancel()
  /// ```
  ///
  /// It is `Sendable`, which goes beyond Combine: its settings are constants and its subscribers
  /// are guarded by a lock.
  public final class TimerPublisher: ConnectablePublisher, @unchecked Sendable {
    /// The kind of values published by this publisher: the date of each tick.
    public typealias Output = Date
    /// The kind of errors this publisher might publish: it never fails.
    public typealias Failure = Never

    /// The interval between ticks, in seconds.
    public let interval: TimeInterval
    /// The tolerance of the timer, in seconds; `nil` is none.
    public let tolerance: TimeInterval?
    /// The run loop on which the timer runs.
    public let runLoop: RunLoop
    /// The run loop mode in which the timer runs.
    public let mode: RunLoop.Mode
    /// The scheduler options the publisher was given.
    public let options: RunLoop.SchedulerOptions?

    // Guarded by its own lock: the subscriptions the next tick goes to, in subscription order.
    private let subscriptions = Locked<[any TimerTickReceiver]>([])

    /// Creates a publisher that emits the current date on the given interval, once connected.
    ///
    /// - Parameters:
    ///   - interval: The interval on which to publish events, in seconds.
    ///   - tolerance: The allowed timing variance of the timer, in seconds; `nil` is none.
    ///   - runLoop: The run loop on which the timer runs.
    ///   - mode: The run loop mode in which to run the timer.
    ///   - options: Scheduler options passed to the timer; defaults to `nil`.
    public init(
      interval: TimeInterval, tolerance: TimeInterval? = nil, runLoop: RunLoop, mode: RunLoop.Mode,
      options: RunLoop.SchedulerOptions? = nil
    ) {
      self.interval = interval
      self.tolerance = tolerance
      self.runLoop = runLoop
      self.mode = mode
      self.options = options
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Date, S.Failure == Never {
      let subscription = TimerSubscription(parent: self, downstream: subscriber)
      subscriptions.withLock { $0.append(subscription) }
      subscriber.receive(subscription: subscription)
    }

    /// Starts a timer that ticks every ``interval`` on ``runLoop`` in ``mode``; cancel the result
    /// to invalidate it. Each call starts a timer of its own.
    public func connect() -> any Cancellable {
      TimerConnection(publisher: self)
    }

    /// Sends one date, the same to every subscription, after the lock.
    func fire() {
      let date = Date()
      let receivers = subscriptions.withLock { $0 }
      for receiver in receivers { receiver.receive(tick: date) }
    }

    func detach(_ receiver: any TimerTickReceiver) {
      // The receiver leaves the list after the lock.
      let removed = subscriptions.withLock { list -> [any TimerTickReceiver] in
        let leaving = list.filter { $0 === receiver }
        list.removeAll { $0 === receiver }
        return leaving
      }
      withExtendedLifetime(removed) {}
    }

    /// Ends every subscription, as a connection's cancel does in Combine.
    func detachAll() {
      for receiver in subscriptions.exchange([]) { receiver.disconnect() }
    }
  }
}

/// What a timer publisher's tick reaches: one subscriber's subscription.
protocol TimerTickReceiver: AnyObject, Sendable {
  func receive(tick date: Date)
  func disconnect()
}

/// One subscriber's subscription to a timer publisher.
private final class TimerSubscription<Downstream: Subscriber>: Subscription, TimerTickReceiver, CensusScoped,
  @unchecked Sendable
where Downstream.Input == Date, Downstream.Failure == Never {
  // Guarded by its own lock.
  private let machine: Locked<TimerSubscriptionStateMachine<Downstream>>
  // Weak, as in Combine: the publisher holds its subscriptions, not the other way round. Guarded
  // by its own lock.
  private let parent: Locked<WeakTimerPublisher>
  private let census: CensusToken

  var censusScope: CensusScope? { census.scope }

  init(parent: Timer.TimerPublisher, downstream: Downstream) {
    census = CensusToken(TimerSubscription.self, inheritingFrom: downstream)
    machine = Locked(TimerSubscriptionStateMachine(downstream: downstream))
    self.parent = Locked(WeakTimerPublisher(publisher: parent))
  }

  func receive(tick date: Date) {
    guard case .deliver(let downstream) = machine.withLock({ $0.tick() }) else { return }
    let additional = downstream.receive(date)
    machine.withLock { $0.delivered(additional: additional) }
  }

  func request(_ demand: Subscribers.Demand) {
    machine.withLock { $0.request(demand) }
  }

  func cancel() {
    // The subscriber is released after the lock; its deinit may cancel again.
    guard let downstream = machine.withLock({ $0.end() }) else { return }
    withExtendedLifetime(downstream) {}
    parent.withLock { $0.publisher }?.detach(self)
  }

  func disconnect() {
    withExtendedLifetime(machine.withLock { $0.end() }) {}
  }
}

/// A weak reference to a timer publisher.
private struct WeakTimerPublisher {
  weak var publisher: Timer.TimerPublisher?
}

/// The connection of a timer publisher: a repeating `Timer` on the publisher's run loop, until
/// cancelled.
///
/// The timer's block holds the connection, through a relay, and the connection holds the
/// publisher: a connected publisher keeps ticking while its run loop runs, whoever holds it, as
/// in Combine. Cancelling empties the relay, so the connection and the publisher go at once,
/// even though Foundation on Linux may keep an invalidated timer and its block for longer.
final class TimerConnection: Cancellable, @unchecked Sendable {
  private struct Connected {
    let timer: Timer
    let publisher: Timer.TimerPublisher
    let relay: TimerRelay
  }

  // Guarded by its own lock: the timer, the publisher and the relay, until cancelled.
  private let connected = Locked<Connected?>(nil)
  private let census: CensusToken

  init(publisher: Timer.TimerPublisher) {
    census = CensusToken(TimerConnection.self)
    let relay = TimerRelay()
    let timer = Timer(timeInterval: publisher.interval, repeats: true) { _ in relay.fire() }
    timer.tolerance = publisher.tolerance ?? 0
    connected.withLock { $0 = Connected(timer: timer, publisher: publisher, relay: relay) }
    relay.connection.withLock { $0 = self }
    publisher.runLoop.add(timer, forMode: publisher.mode)
  }

  /// The timer while connected; `nil` once cancelled.
  var timer: Timer? { connected.withLock { $0?.timer } }

  fileprivate func fire() {
    connected.withLock { $0?.publisher }?.fire()
  }

  func cancel() {
    // The timer is invalidated, the subscriptions ended and the relay emptied after the lock.
    guard let ended = connected.exchange(nil) else { return }
    ended.timer.invalidate()
    ended.publisher.detachAll()
    ended.relay.connection.exchange(nil)
  }
}

/// What a connection's timer block holds: the connection, until it is cancelled.
private final class TimerRelay: Sendable {
  // Guarded by its own lock.
  let connection = Locked<TimerConnection?>(nil)

  func fire() {
    connection.withLock { $0 }?.fire()
  }
}

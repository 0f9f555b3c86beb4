import Dispatch
import Observation
import Synchronization

/// A publisher of the changes of an `@Observable` model: the value a closure reads from the
/// model, when subscribed to and after each change of what the closure read.
///
/// This goes beyond Combine, which predates Observation. You make one with the model's
/// `changes(_:)` or `changes(on:options:_:)`.
///
/// A change is what `Observations` calls one. Observation reports a change before the new value
/// is stored, so the publisher does not read then: it schedules a read on `scheduler`, and every
/// change made before that read runs (all the mutations of one turn of a serial queue, say)
/// comes out as one value, read after them. The read tracks what it touches again, so the
/// closure may read several properties, or follow one model to another. Every read of the model
/// and every delivery happens on `scheduler`; the first value, too, is read there, shortly
/// after subscription. Values are not compared: a change that stores an equal value publishes
/// it again (add `removeDuplicates()` if that matters).
///
/// The scheduler must run actions after `schedule` returns: with `ImmediateScheduler`, the read
/// would run inside the change, before the new value is stored, so that scheduler is refused.
///
/// Back-pressure: a read happens whenever a change calls for one, demand or not; without
/// demand, its value is held, replacing the one held before, and goes out when demand comes.
/// A slow subscriber so gets the latest value, as with `CurrentValueSubject`, and the model is
/// kept under observation all along.
///
/// The publisher and its subscriptions hold the model weakly. When the model goes away, the
/// registration Observation keeps for the last read goes with it, and the subscription finishes
/// on `scheduler`, dropping a value still held: with no further change, and without waiting for
/// one. (If the closure also read other objects that outlive the model, the registration lives
/// on in them, and the finish comes with their next change, when the read finds the model
/// gone.) A subscription that finds the model gone at subscription finishes at once, without a
/// value. A closure that reads no observable property publishes its first value and nothing
/// more, as there is nothing to track.
///
/// Cancelling lets go of the subscriber and the closure. Observation has no way to withdraw a
/// registration, so the last one stays with the model until its next change or its end; it
/// holds neither the model nor the subscription, and does nothing when it fires.
///
/// ```swift
/// @Observable final class Editor { var document = Document() }
///
/// let cancellable = editor.changes { $0.document }
///     .debounce(for: .seconds(1), scheduler: queue)
///     .sink { save($0) }
/// ```
public struct ObservationChanges<Model: Observable & AnyObject, Value, Context: Scheduler>: Publisher {
  /// The kind of values published by this publisher: what the closure reads.
  public typealias Output = Value
  /// The kind of errors this publisher might publish: it never fails.
  public typealias Failure = Never

  /// Weak, so that keeping the publisher (in a property of the model itself, say) does not keep
  /// the model alive.
  private weak var weakModel: Model?
  private let read: (Model) -> Value

  /// The scheduler on which the publisher reads the model and delivers values.
  public let scheduler: Context

  /// Scheduler options that customize the reads and deliveries.
  public let options: Context.SchedulerOptions?

  /// The observed model, or `nil` once it has gone away.
  public var model: Model? { weakModel }

  /// Creates a publisher of the values `read` reads from `model`, read and delivered on
  /// `scheduler`.
  ///
  /// This goes beyond Combine.
  ///
  /// ```swift
  /// let counts = ObservationChanges(model, scheduler: DispatchQueue.main, options: nil) { $0.count }
  /// ```
  ///
  /// - Precondition: `scheduler` is not an `ImmediateScheduler`, which would read the model
  ///   before a change stores its new value.
  public init(
    _ model: Model, scheduler: Context, options: Context.SchedulerOptions?, read: @escaping (Model) -> Value
  ) {
    precondition(
      Context.self != ImmediateScheduler.self,
      "ObservationChanges: ImmediateScheduler would read the model inside the change, before the new value is "
        + "stored; pass a scheduler that runs actions later, such as DispatchQueue.main or a serial queue")
    weakModel = model
    self.read = read
    self.scheduler = scheduler
    self.options = options
  }

  /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
  public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    let subscription = ObservationChangesSubscription(
      model: weakModel, read: read, scheduler: scheduler, options: options, downstream: subscriber)
    subscriber.receive(subscription: subscription)
    subscription.subscribed()
  }
}

extension Observable where Self: AnyObject {
  /// A publisher of the value `read` reads from this model, now and after each change of what
  /// it read, read and delivered on the main queue.
  ///
  /// This goes beyond Combine. The main queue is where an `@Observable` view model is changed,
  /// so reading it there does not race with the changes, and the changes made in one turn of
  /// the main queue come out as one value, read after them. A model changed elsewhere (on a
  /// server, or behind an actor) goes with `changes(on:options:_:)` and the queue that changes
  /// it; the main queue delivers only while something runs it (an app's run loop,
  /// `dispatchMain()`, an `async` main). See ``ObservationChanges`` for when values and the
  /// finish arrive.
  ///
  /// ```swift
  /// let cancellable = model.changes { $0.document }
  ///     .debounce(for: .seconds(1), scheduler: queue)
  ///     .sink { save($0) }
  /// ```
  ///
  /// - Parameter read: Reads the value to publish from the model; it may read several
  ///   properties, which are all tracked.
  /// - Returns: A publisher of the values read, which finishes when the model goes away.
  public func changes<Value>(
    _ read: @escaping (Self) -> Value
  ) -> ObservationChanges<Self, Value, DispatchQueue> {
    ObservationChanges(self, scheduler: DispatchQueue.main, options: nil, read: read)
  }

  /// A publisher of the value `read` reads from this model, now and after each change of what
  /// it read, read and delivered on `scheduler`.
  ///
  /// This goes beyond Combine. Pass the scheduler on which the model is changed: the reads
  /// happen there, after the changes, and the changes made before a read runs come out as one
  /// value. See ``ObservationChanges`` for when values and the finish arrive.
  ///
  /// ```swift
  /// let cancellable = model.changes(on: modelQueue) { ($0.width, $0.height) }
  ///     .sink { width, height in layout(width, height) }
  /// ```
  ///
  /// - Parameters:
  ///   - scheduler: The scheduler on which to read the model and deliver values; not an
  ///     `ImmediateScheduler`, which would read before a change stores its new value.
  ///   - options: Scheduler options that customize the reads and deliveries.
  ///   - read: Reads the value to publish from the model; it may read several properties,
  ///     which are all tracked.
  /// - Returns: A publisher of the values read, which finishes when the model goes away.
  public func changes<Value, S: Scheduler>(
    on scheduler: S, options: S.SchedulerOptions? = nil, _ read: @escaping (Self) -> Value
  ) -> ObservationChanges<Self, Value, S> {
    ObservationChanges(self, scheduler: scheduler, options: options, read: read)
  }
}

/// One subscriber's observation of a model; its decisions are an
/// `ObservationChangesStateMachine`'s.
///
/// The model is held weakly, here and in the registrations, so that neither the subscription
/// nor a scheduled run keeps it alive. Each read registers, through `withObservationTracking`,
/// an `ObservationRegistration` that reports the end of the read's registration once: when a change of
/// what the read touched fires it, or when it is freed without having fired, which happens when
/// the objects it was registered with (the model) are freed.
///
/// Described, reflected and shown in playgrounds as "ObservationChanges", with the downstream,
/// its demand not yet met and the value held for it.
final class ObservationChangesSubscription<
  Model: Observable & AnyObject, Context: Scheduler, Downstream: Subscriber
>: Subscription, ObservationRegistrationTarget, CustomStringConvertible, CustomReflectable,
  CustomPlaygroundDisplayConvertible, CensusScoped, @unchecked Sendable
where Downstream.Failure == Never {
  typealias Value = Downstream.Input
  typealias Read = (Model) -> Value
  typealias Machine = ObservationChangesStateMachine<Downstream, Read, Value>

  // Guarded by its own lock.
  let state: Locked<Machine>
  // Weak loads are atomic; read by the runs without the lock.
  private weak let model: Model?
  let scheduler: Context
  let options: Context.SchedulerOptions?
  let census: CensusToken

  var description: String { "ObservationChanges" }
  var playgroundDescription: Any { description }
  var censusScope: CensusScope? { census.scope }

  var customMirror: Mirror {
    let (downstream, demand, held) = state.withLock { ($0.downstream, $0.demand, $0.held) }
    let downstreamChild: Any = if let downstream { downstream } else { downstream as Any }
    let children: [Mirror.Child] = [
      ("downstream", downstreamChild), ("demand", demand), ("currentValue", held as Any),
    ]
    return Mirror(self, children: children)
  }

  init(
    model: Model?, read: @escaping Read, scheduler: Context, options: Context.SchedulerOptions?,
    downstream: Downstream
  ) {
    census = CensusToken(ObservationChangesSubscription.self, inheritingFrom: downstream)
    state = Locked(Machine(downstream: downstream, read: read))
    self.model = model
    self.scheduler = scheduler
    self.options = options
  }

  /// `receive(subscription:)` has returned: the first read may be scheduled.
  func subscribed() {
    if state.withLock({ $0.subscribed() }) { schedule() }
  }

  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    if state.withLock({ $0.request(demand) }) { schedule() }
  }

  func cancel() {
    // What the machine held leaves after the lock; the subscriber's deinit may call back in.
    withExtendedLifetime(state.withLock { $0.cancel() }) {}
  }

  func registrationEnded(_ generation: UInt64) {
    if state.withLock({ $0.registrationEnded(generation) }) { schedule() }
  }

  /// Schedules a run, which owns delivery. The action holds this subscription until it runs.
  private func schedule() {
    scheduler.schedule(options: options) { [self] in run() }
  }

  /// A run on the scheduler: reads the model if a read is owed, and delivers while there is
  /// demand and something to deliver.
  private func run() {
    var started = false
    var more = Subscribers.Demand.none
    var value: Value?
    var modelGone = false
    var released = Machine.Released()
    state.drain { machine -> NextDelivery<Machine.Work> in
      guard started else {
        started = true
        return machine.runStarted()
      }
      return machine.next(adding: &more, value: &value, modelGone: modelGone, released: &released)
    } perform: { work in
      switch work {
      case .read(let read, let generation):
        if let model {
          value = withObservationTracking {
            read(model)
          } onChange: {
            // Built only when the read touched something to track.
            [registration = ObservationRegistration(self, generation: generation)] in
            registration.changed()
          }
        } else {
          modelGone = true
        }
      case .deliver(let downstream, let value):
        more = downstream.receive(value)
      case .finish(let downstream):
        downstream.receive(completion: .finished)
      case .reschedule:
        schedule()
      }
    }
    withExtendedLifetime(released) {}
  }
}

/// What learns that the registration of one of its reads has ended.
protocol ObservationRegistrationTarget: AnyObject, CensusScoped, Sendable {
  /// The registration of read `generation` ended: a change of what the read touched is about to
  /// be stored, or everything the read was registered with is gone.
  func registrationEnded(_ generation: UInt64)
}

/// What Observation keeps for one read of an `ObservationChanges` subscription: it reports the
/// end of that read's registration to the subscription, if the subscription is still there,
/// exactly once. Not generic, so that the `@Sendable` closure Observation keeps captures no
/// metatype of the subscriber's.
final class ObservationRegistration: Sendable {
  private weak let target: (any ObservationRegistrationTarget)?
  private let generation: UInt64
  private let ended = Atomic<Bool>(false)
  private let census: CensusToken

  init(_ target: any ObservationRegistrationTarget, generation: UInt64) {
    census = CensusToken(ObservationRegistration.self, inheritingFrom: target)
    self.target = target
    self.generation = generation
  }

  /// A change of what the read touched is about to be stored.
  func changed() {
    end()
  }

  private func end() {
    guard !ended.exchange(true, ordering: .acquiringAndReleasing) else { return }
    target?.registrationEnded(generation)
  }

  deinit {
    // Freed without a change: everything the read was registered with is gone.
    end()
  }
}

/// The decisions of an `ObservationChanges` subscription, kept apart from its calls out
/// (DESIGN.md §3): each event updates the state under the subscription's lock and says what the
/// subscription does once the lock is released.
///
/// Everything that touches the model or the downstream happens in a run on the scheduler, and
/// one run at a time: delivery (see `DeliveryOwnership`) is claimed when a run is scheduled and
/// given back by that run when it finds nothing left to do, so a change, a request or the end of
/// a registration that comes while a run is scheduled or running only leaves its work for it.
/// A run reads the model when a read is owed (at the start, and after the registration of the
/// last read ended), delivers what it read if there is demand, and otherwise holds it, replacing
/// any value held before, until demand comes. A read owed once the run has read goes to a new
/// run, so that changes made meanwhile are read in a later turn of the scheduler, after them.
///
/// `Downstream` and `Read` are the subscriber and the read closure, generic so that the machine
/// is tested without either.
struct ObservationChangesStateMachine<Downstream, Read, Value> {
  enum Phase {
    /// The downstream is being handed its subscription; no run is scheduled before it has it.
    case subscribing
    case active
    /// Finished or cancelled: nothing more goes down.
    case terminal
  }

  /// What the owner of delivery does after the lock.
  enum Work {
    /// Read the model, tracking what the read touches under registration `generation`.
    case read(Read, generation: UInt64)
    case deliver(Downstream, Value)
    /// The model is gone: finish the downstream.
    case finish(Downstream)
    /// A read is owed after this run's: schedule a new run, which owns delivery from now on.
    case reschedule
  }

  /// What a cancel or the finish lets go of, after the lock.
  struct Released {
    var downstream: Downstream?
    var read: Read?
    var held: Value?
  }

  private(set) var phase = Phase.subscribing
  /// Until the finish goes out, or the downstream cancels.
  private(set) var downstream: Downstream?
  /// The read closure, until the subscription ends.
  private var read: Read?
  private(set) var demand = Subscribers.Demand.none
  /// The latest value read and not yet delivered, for lack of demand.
  private(set) var held: Value?
  /// Whether the next run reads the model: at the start, and once the last read's registration
  /// has ended (a change of what it read, or the end of everything it tracked).
  private(set) var readOwed = true
  /// The registration of the latest read: an end reported for an older one changes nothing.
  private(set) var generation: UInt64 = 0
  private var delivery = DeliveryOwnership()

  init(downstream: Downstream, read: Read) {
    self.downstream = downstream
    self.read = read
  }

  /// The downstream has its subscription: whether to schedule the first run, which owns
  /// delivery. `false` if the downstream cancelled meanwhile.
  mutating func subscribed() -> Bool {
    guard case .subscribing = phase else { return false }
    phase = .active
    return delivery.claim()
  }

  /// Demand from the downstream: whether to schedule a run, for a value held for lack of it.
  mutating func request(_ more: Subscribers.Demand) -> Bool {
    switch phase {
    case .terminal:
      return false
    case .subscribing:
      demand += more
      return false
    case .active:
      demand += more
      return held != nil && delivery.claim()
    }
  }

  /// The registration of read `generation` ended, by a change of what it read or because
  /// everything it tracked is gone: whether to schedule a run, which then reads again.
  mutating func registrationEnded(_ generation: UInt64) -> Bool {
    guard case .active = phase, generation == self.generation else { return false }
    readOwed = true
    return delivery.claim()
  }

  /// A scheduled run starts; it owns delivery.
  mutating func runStarted() -> NextDelivery<Work> {
    guard case .active = phase else { return .stop }
    if readOwed, let read {
      readOwed = false
      generation &+= 1
      return .perform(.read(read, generation: generation))
    }
    return deliverHeldOrGiveBack()
  }

  /// The run performed a step: `more` is the demand the last delivery returned, `value` what
  /// the last read returned, `modelGone` whether the read found the model gone. `more` and
  /// `value` are taken; a value held before and replaced leaves through `released`.
  mutating func next(
    adding more: inout Subscribers.Demand, value: inout Value?, modelGone: Bool, released: inout Released
  ) -> NextDelivery<Work> {
    guard case .active = phase else { return .stop }
    demand += more
    more = .none
    if modelGone {
      phase = .terminal
      released.read = read.take()
      released.held = held.take()
      // Delivery stays claimed for good: the stream has ended.
      return .performAndStop(.finish(downstream.take()!))
    }
    if let read = value.take() {
      if demand > .none, let downstream {
        if demand != .unlimited { demand -= 1 }
        return .perform(.deliver(downstream, read))
      }
      released.held = held
      held = read
    }
    if readOwed { return .performAndStop(.reschedule) }
    return deliverHeldOrGiveBack()
  }

  /// The downstream cancelled: what the subscription held, to let go of after the lock; `nil`
  /// if it had ended already.
  mutating func cancel() -> Released? {
    if case .terminal = phase { return nil }
    phase = .terminal
    return Released(downstream: downstream.take(), read: read.take(), held: held.take())
  }

  private mutating func deliverHeldOrGiveBack() -> NextDelivery<Work> {
    if demand > .none, held != nil, let downstream {
      if demand != .unlimited { demand -= 1 }
      return .perform(.deliver(downstream, held.take()!))
    }
    delivery.giveBack()
    return .stop
  }
}

import Synchronization

/// The decisions of `receive(on:)` and `delay(for:tolerance:scheduler:options:)`. Every element
/// upstream sends waits in `values` (the completion in `completion`) for a scheduled run; each
/// run delivers the oldest one, so that the order holds whichever run the scheduler starts first.
@usableFromInline
struct ScheduledDeliveryStateMachine<Input, Failure: Error> {
  @usableFromInline
  enum Phase {
    case awaitingSubscription
    case subscribed
    /// Completed or cancelled: nothing more goes down.
    case terminal
  }

  /// What the owner of delivery does next.
  @usableFromInline
  enum Delivery {
    case deliver(Input)
    case complete(Subscribers.Completion<Failure>)
    /// Ended: let go of the downstream, and keep delivery for good.
    case release
    case idle
  }

  @usableFromInline
  var phase = Phase.awaitingSubscription
  @usableFromInline
  var upstream: (any Subscription)?
  @usableFromInline
  var values = ValueQueue<Input>()
  @usableFromInline
  var completion: Subscribers.Completion<Failure>?
  @usableFromInline
  var delivery = DeliveryOwnership()
  /// Runs that found delivery taken: each is owed one element by the owner.
  @usableFromInline
  var owedRuns = 0

  @inlinable
  init() {}

  /// Upstream's subscription: `true` if it is kept, and then the caller owns delivery while it
  /// hands the downstream its subscription.
  @usableFromInline
  mutating func receive(subscription: any Subscription) -> Bool {
    guard case .awaitingSubscription = phase else { return false }
    phase = .subscribed
    upstream = subscription
    _ = delivery.claim()
    return true
  }

  /// The subscribing call has handed the downstream its subscription: `nil` if the subscription
  /// was cancelled meanwhile (the caller then lets go of the downstream and keeps delivery);
  /// otherwise it gives delivery back, and returns how many runs that came meanwhile are to be
  /// scheduled again, so that their elements go down on the scheduler, not on this thread.
  @inlinable
  mutating func subscriptionHandedOver() -> Int? {
    if case .terminal = phase { return nil }
    let owed = owedRuns
    owedRuns = 0
    delivery.giveBack()
    return owed
  }

  /// An element from upstream: whether a run is to be scheduled for it.
  @inlinable
  mutating func receive(_ input: Input) -> Bool {
    guard case .subscribed = phase, completion == nil else { return false }
    values.append(input)
    return true
  }

  /// Upstream completed: whether a run is to be scheduled for it. Upstream is forgotten.
  @usableFromInline
  mutating func receive(completion: Subscribers.Completion<Failure>) -> Bool {
    guard case .subscribed = phase, self.completion == nil else { return false }
    self.completion = completion
    upstream = nil
    return true
  }

  /// A scheduled run starts.
  @inlinable
  mutating func run() -> Delivery {
    guard delivery.claim() else {
      owedRuns += 1
      return .idle
    }
    return take()
  }

  /// The owner finished one step: what it owes next, or nothing (it then gives delivery back).
  @inlinable
  mutating func stepDone() -> Delivery {
    if case .terminal = phase { return .release }
    guard owedRuns > 0 else {
      delivery.giveBack()
      return .idle
    }
    owedRuns -= 1
    return take()
  }

  /// The subscription still running upstream, for a request.
  @inlinable
  var runningUpstream: (any Subscription)? {
    guard case .subscribed = phase else { return nil }
    return upstream
  }

  /// The downstream cancelled: the upstream to cancel, whether the caller owns delivery (and so
  /// releases the downstream), and the elements dropped, to release after the lock; `nil` if the
  /// subscription had ended already.
  @usableFromInline
  mutating func cancel() -> (upstream: (any Subscription)?, ownsDelivery: Bool, dropped: ValueQueue<Input>)? {
    switch phase {
    case .awaitingSubscription, .terminal:
      return nil
    case .subscribed:
      phase = .terminal
      completion = nil
      var dropped = ValueQueue<Input>()
      swap(&dropped, &values)
      return (upstream.take(), delivery.claim(), dropped)
    }
  }

  @inlinable
  mutating func take() -> Delivery {
    if case .terminal = phase { return .release }
    if let value = values.popFirst() { return .deliver(value) }
    if let completion {
      phase = .terminal
      self.completion = nil
      return .complete(completion)
    }
    // A run for an element that a cancel has dropped.
    delivery.giveBack()
    return .idle
  }
}

import Synchronization

/// What a ``FallibleStep`` makes of one upstream value.
@usableFromInline
enum FallibleStepResult<Output> {
  /// Send this value downstream.
  case emit(Output)
  /// Send nothing and ask upstream for one more in place of the value.
  case drop
  /// Cancel upstream and finish the stream.
  case finish
}

/// Which of Combine's subscriptions an operator's own subscription behaves as: Combine's
/// operators differ in what they do with what reaches them before upstream's subscription, and
/// with a request for `.none`. The Combine-verified suite records each operator's.
@usableFromInline
enum CombineSubscriptionKind {
  /// `tryMap`: a value before upstream's subscription is handled like any other (a throw fails
  /// the stream, and the subscription that comes later is cancelled); a completion, a request or a
  /// cancel before it is ignored (the subscription that comes later is taken as if nothing had
  /// happened). A request for `.none` is passed upstream.
  case mapping
  /// `tryScan`, `output(in:)`: as `mapping`, except that an end the operator comes to before
  /// upstream's subscription (a throw, the range's end) is ignored with the value.
  case accumulating
  /// `encode`, `decode`: as `mapping`, except that a completion before upstream's subscription
  /// ends the stream and is passed on (the subscription that comes later is cancelled).
  case coding
  /// `drop(while:)`, `tryDrop(while:)`: a value, a completion, a request or a cancel before
  /// upstream's subscription is ignored. A request for `.none` traps.
  case dropping
  /// `tryFilter`, `tryCompactMap`, `removeDuplicates`, `tryRemoveDuplicates`, `prefix(while:)`,
  /// `tryPrefix(while:)` (one implementation in Combine): a value, a completion or a request
  /// before upstream's subscription traps; a cancel before it ends the stream (the subscription
  /// that comes later is cancelled). A request for `.none` traps.
  case filtering
}

/// Where an operator's own subscription stands, in one atomic word, for subscriptions whose
/// upstream calls take no lock: the value path reads it with one relaxed load and writes
/// nothing; the few transitions (the subscription arrives, the stream ends, downstream cancels)
/// are single atomic operations. Each decision returns what the caller does next, which it does
/// with no lock held.
///
/// What each phase means for the owner's other stored state: its subscription to upstream is
/// stored by `receive(subscription:)` before the phase becomes `subscribed` (with release
/// ordering), so a request or a cancel from any thread that sees `subscribed` (with acquire
/// ordering) sees it; it is never changed again, so it is kept until the owner goes. What
/// upstream's calls use (downstream, the step's state) is touched only by them, never by a
/// request or a cancel, and lives in the subscriber upstream was given (a separate object,
/// `FallibleInner`, that upstream alone holds), so it goes when upstream lets go of that.
@usableFromInline
struct SubscriptionPhase: ~Copyable {
  /// Upstream's subscription has not arrived.
  @inlinable
  static var awaitingSubscription: Int { 0 }
  /// Values flow.
  @inlinable
  static var subscribed: Int { 1 }
  /// Finished, failed or cancelled.
  @inlinable
  static var ended: Int { 2 }

  /// How a stream the owner itself ends (a step threw or finished) is wound up.
  @usableFromInline
  struct Ending {
    /// Upstream's subscription was live: cancel it.
    @usableFromInline
    let cancelsUpstream: Bool
    /// Downstream has not been told the stream is over (it did not cancel): complete it.
    @usableFromInline
    let completesDownstream: Bool

    @inlinable
    init(cancelsUpstream: Bool, completesDownstream: Bool) {
      self.cancelsUpstream = cancelsUpstream
      self.completesDownstream = completesDownstream
    }
  }

  @usableFromInline
  let word = Atomic<Int>(0)

  @inlinable
  init() {}

  /// Whether values flow: the value path's one check. Relaxed, as the value path reads nothing
  /// that another thread writes.
  @inlinable @inline(__always)
  var isSubscribed: Bool { word.load(ordering: .relaxed) == Self.subscribed }

  /// Whether upstream's subscription is still to come.
  @inlinable
  var isAwaitingSubscription: Bool { word.load(ordering: .relaxed) == Self.awaitingSubscription }

  /// Whether the stream has ended.
  @inlinable
  var hasEnded: Bool { word.load(ordering: .relaxed) == Self.ended }

  /// Upstream's subscription, already stored by the caller, arrives: whether it is taken (the
  /// stream has not ended before it, by a cancel or by a value or completion before it).
  @inlinable
  func subscribe() -> Bool {
    word.compareExchange(
      expected: Self.awaitingSubscription, desired: Self.subscribed, ordering: .acquiringAndReleasing
    ).exchanged
  }

  /// A value arrives while values do not flow: whether to handle it as usual (else it is
  /// ignored, as after the end).
  @inlinable
  func admitsValue(_ kind: CombineSubscriptionKind) -> Bool {
    guard word.load(ordering: .relaxed) == Self.awaitingSubscription else { return false }
    switch kind {
    case .mapping, .accumulating, .coding: return true
    case .dropping: return false
    case .filtering:
      preconditionFailure(
        "Subscriber.receive(_:) before receive(subscription:): a publisher must send its subscriber a subscription before any value"
      )
    }
  }

  /// A completion arrives from upstream: whether to pass it on, which ends the stream (else it
  /// is ignored).
  @inlinable
  func admitsCompletion(_ kind: CombineSubscriptionKind) -> Bool {
    if word.load(ordering: .relaxed) == Self.awaitingSubscription {
      switch kind {
      case .mapping, .accumulating, .dropping: return false
      case .coding: break
      case .filtering:
        preconditionFailure(
          "Subscriber.receive(completion:) before receive(subscription:): a publisher must send its subscriber a subscription before completing"
        )
      }
    }
    return word.exchange(Self.ended, ordering: .acquiringAndReleasing) != Self.ended
  }

  /// The owner ends the stream from one of upstream's calls; `nil` when the end is ignored
  /// (`accumulating` before upstream's subscription).
  @inlinable
  func end(_ kind: CombineSubscriptionKind) -> Ending? {
    if case .accumulating = kind, word.load(ordering: .relaxed) == Self.awaitingSubscription { return nil }
    let previous = word.exchange(Self.ended, ordering: .acquiringAndReleasing)
    return Ending(cancelsUpstream: previous == Self.subscribed, completesDownstream: previous != Self.ended)
  }

  /// Downstream requests `demand`: whether to pass it upstream.
  @inlinable
  func admitRequest(_ demand: Subscribers.Demand, _ kind: CombineSubscriptionKind) -> Bool {
    switch kind {
    case .dropping, .filtering: demand.assertPositive()
    case .mapping, .accumulating, .coding: break
    }
    let phase = word.load(ordering: .acquiring)
    if phase == Self.awaitingSubscription, case .filtering = kind {
      preconditionFailure(
        "Subscription.request(_:) before the subscriber received the subscription: request only through a subscription the subscriber was given"
      )
    }
    return phase == Self.subscribed
  }

  /// Downstream cancels: whether to cancel upstream. Only the first cancel of a live
  /// subscription does.
  @inlinable
  func cancel(_ kind: CombineSubscriptionKind) -> Bool {
    switch kind {
    case .filtering:
      return word.exchange(Self.ended, ordering: .acquiringAndReleasing) == Self.subscribed
    case .mapping, .accumulating, .coding, .dropping:
      return word.compareExchange(
        expected: Self.subscribed, desired: Self.ended, ordering: .acquiringAndReleasing
      ).exchanged
    }
  }

  /// The phase's name, for mirrors.
  @usableFromInline
  var name: String {
    switch word.load(ordering: .relaxed) {
    case Self.awaitingSubscription: "awaitingSubscription"
    case Self.subscribed: "subscribed"
    default: "terminal"
    }
  }
}

/// What a ``FallibleInner`` shows in its `customMirror`, for its step to choose from: Combine's
/// subscriptions of the operators show different parts of themselves.
@usableFromInline
struct FallibleReflection {
  /// The subscriber, or `nil` once let go of.
  @usableFromInline
  let downstream: Any
  /// Whether the stream has ended.
  @usableFromInline
  let finished: Bool
  /// The phase's name: `awaitingSubscription`, `subscribed` or `terminal`.
  @usableFromInline
  let status: String
  /// Upstream's subscription, or `nil` before it arrives.
  @usableFromInline
  let upstream: Any

  @inlinable
  init(downstream: Any, finished: Bool, status: String, upstream: Any) {
    self.downstream = downstream
    self.finished = finished
    self.status = status
    self.upstream = upstream
  }
}

/// The per-operator part of a ``FallibleInner``: what one upstream value becomes, and any state
/// carried from one value to the next. Only the inner's serialized calls touch it.
@usableFromInline
protocol FallibleStep {
  /// The kind of values received from upstream.
  associatedtype Input
  /// The kind of values sent downstream.
  associatedtype Emitted
  /// The kind of errors received from upstream.
  associatedtype UpstreamFailure: Error
  /// The kind of errors sent downstream; `step` throws them to fail the stream.
  associatedtype Failure: Error

  /// The operator's name, the inner's `description`.
  static var name: String { get }

  /// Which of Combine's subscriptions the inner behaves as.
  static var kind: CombineSubscriptionKind { get }

  /// The children of the inner's `customMirror`, as Combine's subscription of the operator has
  /// them; `step` is `nil` once the stream has ended.
  static func mirrorChildren(of step: Self?, _ inner: FallibleReflection) -> [Mirror.Child]

  /// Handles one upstream value; a thrown error cancels upstream and fails the stream.
  mutating func step(_ input: Input) throws(Failure) -> FallibleStepResult<Emitted>

  /// The failure sent downstream for a failure from upstream.
  static func failure(_ failure: UpstreamFailure) -> Failure
}

extension FallibleStep where Failure == any Error {
  @inlinable
  static func failure(_ failure: UpstreamFailure) -> any Error { failure }
}

/// The `OperatorLink` of a ``FallibleInner``: also names the step it runs.
@usableFromInline
protocol FallibleLink: OperatorLink where Input == Step.Input, Failure == Step.UpstreamFailure {
  /// The per-operator part of the subscriber.
  associatedtype Step: FallibleStep
}

/// The `FallibleLink` of a subscriber that runs `Step` and sends on to `Downstream`. Never
/// instantiated.
@usableFromInline
enum FallibleTypes<Step: FallibleStep, Downstream: Subscriber>: FallibleLink {
  @usableFromInline
  typealias Input = Step.Input
  @usableFromInline
  typealias Failure = Step.UpstreamFailure
}

/// The subscriber a one-to-one operator whose step may end the stream (`tryMap`,
/// `prefix(while:)`, `removeDuplicates`, `output(in:)`, `decode`…) gives upstream. It holds what
/// upstream's calls use (the subscriber, the step); its ``StepSubscription``, which downstream
/// gets as its subscription, as in Combine, holds where the stream stands and upstream's
/// subscription. The calls are implemented once, here; ``FallibleInner`` and
/// ``PassingStepInner`` store what they use.
///
/// Upstream alone holds the subscriber, so the downstream and the step go when upstream lets go
/// of it: at its completion, or when it is cancelled, even if downstream keeps the cancelled
/// subscription. They are stored in a `let` and a plain `var`, not optionals, so that a value
/// reaches the downstream without a retain, and the deinit, which runs unspecialized, has no
/// generic optional to look up.
///
/// To whoever reaches it as a subscription (only a test can, before upstream's subscription
/// arrives) it is its subscription; it is described and reflected as its subscription is.
@usableFromInline
protocol StepSubscriber: AnyObject, Subscriber, Subscription, CustomStringConvertible, CustomReflectable,
  CustomPlaygroundDisplayConvertible
where Input == Step.Input, Failure == Step.UpstreamFailure {
  /// The per-operator part.
  associatedtype Step: FallibleStep
  /// The subscriber it sends on to.
  associatedtype Downstream: Subscriber where Downstream.Input == Step.Emitted, Downstream.Failure == Step.Failure

  /// The subscriber; touched only from upstream's calls.
  var downstream: Downstream { get }
  /// The step; touched only from upstream's calls, which never overlap (contract 3).
  var step: Step { get set }
  /// The subscription downstream gets.
  var subscription: StepSubscription<Self> { get }
}

extension StepSubscriber {
  @inlinable
  var description: String { subscription.description }
  @inlinable
  var playgroundDescription: Any { subscription.playgroundDescription }
  @inlinable
  var customMirror: Mirror { subscription.customMirror }

  // MARK: Upstream's serialized calls

  @inlinable
  func receive(subscription upstream: any Subscription) {
    guard subscription.accept(upstream) else { return }
    downstream.receive(subscription: subscription)
  }

  @inlinable
  func receive(_ input: Input) -> Subscribers.Demand {
    if !subscription.phase.isSubscribed, !subscription.phase.admitsValue(Step.kind) { return .none }
    let result: FallibleStepResult<Step.Emitted>
    do throws(Step.Failure) {
      result = try step.step(input)
    } catch {
      end(.failure(error))
      return .none
    }
    switch result {
    case .emit(let output): return downstream.receive(output)
    case .drop: return .max(1)
    case .finish: end(.finished)
    }
    return .none
  }

  @inlinable
  func receive(completion: Subscribers.Completion<Failure>) {
    guard subscription.phase.admitsCompletion(Step.kind) else { return }
    downstream.receive(completion: completion.mapFailure { Step.failure($0) })
  }

  /// Cancels upstream and completes downstream, unless downstream has cancelled (or, for some
  /// operators, the subscription is still to come: see `CombineSubscriptionKind`).
  @inlinable
  func end(_ completion: Subscribers.Completion<Step.Failure>) {
    guard let ending = subscription.phase.end(Step.kind) else { return }
    if ending.cancelsUpstream { subscription.upstream?.cancel() }
    if ending.completesDownstream { downstream.receive(completion: completion) }
  }

  // MARK: Subscription (only a test reaches these: see above)

  @inlinable
  func request(_ demand: Subscribers.Demand) {
    subscription.request(demand)
  }

  @inlinable
  func cancel() {
    subscription.cancel()
  }
}

/// The ``StepSubscriber`` of an operator whose values may change type (`tryMap`, `decode` …).
///
/// Generic over one `OperatorLink`, so that a pipeline repeating the operator stays specialized
/// (see `OperatorLink`). The link carries the step with the downstream: a step nested in its
/// publisher contains the upstream, but the link contains the next use's link, so it shrinks
/// from one use to the next.
@usableFromInline
final class FallibleInner<Types: FallibleLink>: StepSubscriber, CensusScoped, @unchecked Sendable
where Types.Downstream.Input == Types.Step.Emitted, Types.Downstream.Failure == Types.Step.Failure {
  @usableFromInline
  typealias Input = Types.Input
  @usableFromInline
  typealias Failure = Types.Failure
  @usableFromInline
  typealias Step = Types.Step
  @usableFromInline
  typealias Downstream = Types.Downstream

  @usableFromInline
  let downstream: Downstream
  // Touched only from upstream's calls, which never overlap (contract 3), so the runtime check
  // is skipped.
  @usableFromInline @exclusivity(unchecked)
  var step: Step
  @usableFromInline
  let subscription: StepSubscription<FallibleInner>
  @usableFromInline
  let census: CensusToken

  @usableFromInline
  var censusScope: CensusScope? { census.scope }

  @inlinable
  init(downstream: Downstream, step: Step) {
    census = CensusToken(FallibleInner.self, inheritingFrom: downstream)
    self.downstream = downstream
    self.step = step
    subscription = StepSubscription(inheritingFrom: downstream)
    subscription.inner = self
  }

  deinit {
    subscription.inner = nil
  }
}

/// The ``StepSubscriber`` of an operator that passes on values of the type it receives
/// (`removeDuplicates`, `output(in:)`), whose step is not nested in its publisher: generic over
/// the step and the downstream, a type that nests one level per use, as an operator that passes
/// on the values and errors it receives can (see `OperatorLink`).
@usableFromInline
final class PassingStepInner<Step: FallibleStep, Downstream: Subscriber>: StepSubscriber, CensusScoped,
  @unchecked Sendable
where Downstream.Input == Step.Emitted, Downstream.Failure == Step.Failure {
  @usableFromInline
  typealias Input = Step.Input
  @usableFromInline
  typealias Failure = Step.UpstreamFailure

  @usableFromInline
  let downstream: Downstream
  // Touched only from upstream's calls, which never overlap (contract 3), so the runtime check
  // is skipped.
  @usableFromInline @exclusivity(unchecked)
  var step: Step
  @usableFromInline
  let subscription: StepSubscription<PassingStepInner>
  @usableFromInline
  let census: CensusToken

  @usableFromInline
  var censusScope: CensusScope? { census.scope }

  @inlinable
  init(downstream: Downstream, step: Step) {
    census = CensusToken(PassingStepInner.self, inheritingFrom: downstream)
    self.downstream = downstream
    self.step = step
    subscription = StepSubscription(inheritingFrom: downstream)
    subscription.inner = self
  }

  deinit {
    subscription.inner = nil
  }
}

/// The subscription of a one-to-one operator whose step may end the stream, as Combine's is:
/// downstream gets it, so that once the stream has ended (the step threw, the step finished it,
/// upstream completed, downstream cancelled) downstream's requests and cancels no longer reach
/// upstream, and a cancel reaches it once. A thrown error cancels upstream and fails the stream;
/// a finish cancels upstream and finishes it. Once the stream has ended its ``StepSubscriber``
/// ignores anything more from upstream.
///
/// No lock: upstream's calls, which its `StepSubscriber` handles, never overlap (contract 3),
/// and where the stream stands is one atomic word (`SubscriptionPhase`), which the value path
/// reads with one relaxed load. What reaches it before upstream's subscription is handled as
/// Combine's subscription of the operator handles it (`Step.kind`).
///
/// It holds nothing generic, so that downstream keeping it after the end keeps nothing of the
/// stream but upstream's subscription, and its deinit, which runs unspecialized, looks up no
/// type.
@usableFromInline
final class StepSubscription<Inner: StepSubscriber>: Subscription, CustomStringConvertible, CustomReflectable,
  CustomPlaygroundDisplayConvertible, CensusScoped, @unchecked Sendable
{
  @usableFromInline
  typealias Step = Inner.Step

  // Stored once by `accept(_:)` before `phase` says `subscribed`, and read by requests and
  // cancels only after they see that; kept until deinit (see `SubscriptionPhase`).
  @usableFromInline @exclusivity(unchecked)
  var upstream: (any Subscription)?
  @usableFromInline
  let phase = SubscriptionPhase()
  // The inner, for the mirror alone: set by the inner's init and cleared by its deinit, so that
  // it never points at a freed inner; not retained, so that downstream keeping the subscription
  // does not keep the inner. Read without synchronization (see `customMirror`).
  @usableFromInline @exclusivity(unchecked)
  unowned(unsafe) var inner: Inner?
  // `Step.kind`, stored so that `request` and `cancel`, which downstream calls through an
  // existential, run no generic code.
  @usableFromInline
  let kind: CombineSubscriptionKind
  @usableFromInline
  let census: CensusToken

  @usableFromInline
  var description: String { Step.name }
  @usableFromInline
  var playgroundDescription: Any { description }
  @usableFromInline
  var censusScope: CensusScope? { census.scope }

  @inlinable
  init(inheritingFrom downstream: Inner.Downstream) {
    census = CensusToken(StepSubscription.self, inheritingFrom: downstream)
    kind = Step.kind
  }

  /// Upstream's subscription arrives: whether the stream takes it (else it is cancelled).
  @inlinable
  func accept(_ subscription: any Subscription) -> Bool {
    guard phase.isAwaitingSubscription else {
      subscription.cancel()
      return false
    }
    upstream = subscription
    guard phase.subscribe() else {
      // Ended before it came; nothing reads `upstream` unless subscribed.
      upstream = nil
      subscription.cancel()
      return false
    }
    return true
  }

  // MARK: Subscription (downstream's calls, from any thread)

  @usableFromInline
  func request(_ demand: Subscribers.Demand) {
    if phase.admitRequest(demand, kind) { upstream?.request(demand) }
  }

  @usableFromInline
  func cancel() {
    if phase.cancel(kind) { upstream?.cancel() }
  }

  // MARK: Reflection

  /// A debugging aid, as in Combine: it reads the step and the subscriber without
  /// synchronization, so it is meant for a stream that is not delivering at the time, nor being
  /// let go of by upstream. Once the stream has ended it shows neither.
  @usableFromInline
  var customMirror: Mirror {
    let live = phase.hasEnded ? nil : inner
    let reflection = FallibleReflection(
      downstream: live.map { $0.downstream as Any } ?? Inner.Downstream?.none as Any, finished: phase.hasEnded,
      status: phase.name, upstream: upstream.map { $0 as Any } ?? upstream as Any)
    return Mirror(self, children: Step.mirrorChildren(of: live?.step, reflection))
  }
}

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
/// request or a cancel, so it is released where no call from upstream can be running: by the
/// call that ends the stream, by the next call after a cancel, or when upstream lets go of the
/// subscriber it was given (which therefore is a separate object, such as `FallibleInner`, that
/// upstream alone holds).
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

  /// What the caller does with a value or a completion it did not expect.
  @usableFromInline
  enum Admission {
    /// Handle it as usual.
    case handle
    /// Do nothing.
    case ignore
    /// The stream is over: let go of what upstream's calls use, and do nothing else.
    case release
  }

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

  /// A value arrives while values do not flow.
  @inlinable
  func admitValue(_ kind: CombineSubscriptionKind) -> Admission {
    guard word.load(ordering: .relaxed) == Self.awaitingSubscription else { return .release }
    switch kind {
    case .mapping, .accumulating, .coding: return .handle
    case .dropping: return .ignore
    case .filtering:
      preconditionFailure(
        "Subscriber.receive(_:) before receive(subscription:): a publisher must send its subscriber a subscription before any value"
      )
    }
  }

  /// A completion arrives from upstream: `.handle` (pass it on) ends the stream.
  @inlinable
  func admitCompletion(_ kind: CombineSubscriptionKind) -> Admission {
    if word.load(ordering: .relaxed) == Self.awaitingSubscription {
      switch kind {
      case .mapping, .accumulating, .dropping: return .ignore
      case .coding: break
      case .filtering:
        preconditionFailure(
          "Subscriber.receive(completion:) before receive(subscription:): a publisher must send its subscriber a subscription before completing"
        )
      }
    }
    return word.exchange(Self.ended, ordering: .acquiringAndReleasing) == Self.ended ? .release : .handle
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
/// `prefix(while:)`, `decode`…) gives upstream; what it receives goes to its
/// ``FallibleSubscription``, which downstream gets as its subscription, as in Combine.
///
/// Upstream alone holds it, and a call upstream is making holds it for that call, so its
/// deinit is the point where no call from upstream can still be running: there it has the
/// subscription let go of the subscriber and the step. That is what frees them after a cancel
/// made from any thread, with no lock on the value path and no per-value bookkeeping: upstream
/// lets go of its subscriber when cancelled, even if downstream keeps the cancelled
/// subscription.
///
/// To whoever reaches it as a subscription (only a test can, before upstream's subscription
/// arrives) it is its subscription; it is described and reflected as its subscription is.
///
/// Generic over one `OperatorLink`, so that a pipeline repeating the operator stays specialized
/// (see `OperatorLink`). The link carries the step with the downstream: a step nested in its
/// publisher contains the upstream, but the link contains the next use's link, so it shrinks
/// from one use to the next.
@usableFromInline
final class FallibleInner<Types: FallibleLink>: Subscriber, Subscription, CustomStringConvertible, CustomReflectable,
  CustomPlaygroundDisplayConvertible, CensusScoped, @unchecked Sendable
where Types.Downstream.Input == Types.Step.Emitted, Types.Downstream.Failure == Types.Step.Failure {
  @usableFromInline
  typealias Input = Types.Input
  @usableFromInline
  typealias Failure = Types.Failure

  @usableFromInline
  let subscription: FallibleSubscription<Types>
  @usableFromInline
  let census: CensusToken

  @usableFromInline
  var description: String { subscription.description }
  @usableFromInline
  var playgroundDescription: Any { subscription.playgroundDescription }
  @usableFromInline
  var customMirror: Mirror { subscription.customMirror }
  @usableFromInline
  var censusScope: CensusScope? { census.scope }

  @inlinable
  init(downstream: Types.Downstream, step: Types.Step) {
    census = CensusToken(FallibleInner.self, inheritingFrom: downstream)
    subscription = FallibleSubscription(downstream: downstream, step: step)
  }

  deinit {
    subscription.release()
  }

  @inlinable
  func receive(subscription upstream: any Subscription) {
    subscription.receive(subscription: upstream)
  }

  @inlinable
  func receive(_ input: Input) -> Subscribers.Demand {
    subscription.receive(input)
  }

  @inlinable
  func receive(completion: Subscribers.Completion<Failure>) {
    subscription.receive(completion: completion)
  }

  @usableFromInline
  func request(_ demand: Subscribers.Demand) {
    subscription.request(demand)
  }

  @usableFromInline
  func cancel() {
    subscription.cancel()
  }
}

/// The subscription of a one-to-one operator whose step may end the stream, as Combine's is:
/// downstream gets it, so that once the stream has ended (the step threw, the step finished it,
/// upstream completed, downstream cancelled) downstream's requests and cancels no longer reach
/// upstream, and a cancel reaches it once. A thrown error cancels upstream and fails the stream;
/// a finish cancels upstream and finishes it. Once the stream has ended it releases the step and
/// the subscriber (at once when upstream's call ends it, else when its ``FallibleInner`` goes)
/// and ignores anything more from upstream.
///
/// No lock: upstream's calls, which reach it through its `FallibleInner`, never overlap
/// (contract 3), and where the stream stands is one atomic word (`SubscriptionPhase`), which the
/// value path reads with one relaxed load. What reaches it before upstream's subscription is
/// handled as Combine's subscription of the operator handles it (`Step.kind`).
@usableFromInline
final class FallibleSubscription<Types: FallibleLink>: SubscriptionRequestHandler, Subscription,
  CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, CensusScoped, @unchecked Sendable
where Types.Downstream.Input == Types.Step.Emitted, Types.Downstream.Failure == Types.Step.Failure {
  @usableFromInline
  typealias Step = Types.Step
  @usableFromInline
  typealias Input = Types.Input
  @usableFromInline
  typealias Failure = Types.Failure
  @usableFromInline
  typealias Downstream = Types.Downstream

  // The two below are touched only from upstream's serialized calls and from the deinit of the
  // `FallibleInner`, which comes after the last of them, so the runtime check is skipped. Both
  // are `nil` once the stream has ended and upstream's calls have seen it.
  @usableFromInline @exclusivity(unchecked)
  var downstream: Downstream?
  @usableFromInline @exclusivity(unchecked)
  var step: Step?
  // Stored once by `receive(subscription:)` before `phase` says `subscribed`, and read by
  // requests and cancels only after they see that; kept until deinit (see `SubscriptionPhase`).
  @usableFromInline @exclusivity(unchecked)
  var upstream: (any Subscription)?
  @usableFromInline
  let phase = SubscriptionPhase()
  @usableFromInline
  let census: CensusToken
  // Specialized `request` and `cancel`; see `SubscriptionRequest`.
  @usableFromInline
  let handle: (FallibleSubscription, SubscriptionRequest) -> Void

  @usableFromInline
  var description: String { Step.name }
  @usableFromInline
  var playgroundDescription: Any { description }
  @usableFromInline
  var censusScope: CensusScope? { census.scope }

  @inlinable
  init(downstream: Downstream, step: Step) {
    census = CensusToken(FallibleSubscription.self, inheritingFrom: downstream)
    self.downstream = downstream
    self.step = step
    handle = SubscriptionRequest.dispatcher()
  }

  // MARK: Upstream's serialized calls, through the `FallibleInner`

  @inlinable
  func receive(subscription: any Subscription) {
    guard phase.isAwaitingSubscription, let downstream else {
      subscription.cancel()
      return
    }
    upstream = subscription
    guard phase.subscribe() else {
      // Ended before it came; nothing reads `upstream` unless subscribed.
      upstream = nil
      subscription.cancel()
      return
    }
    downstream.receive(subscription: self)
  }

  @inlinable
  func receive(_ input: Input) -> Subscribers.Demand {
    if !phase.isSubscribed {
      switch phase.admitValue(Step.kind) {
      case .handle: break
      case .ignore: return .none
      case .release:
        release()
        return .none
      }
    }
    guard let downstream else { return .none }
    let result: FallibleStepResult<Step.Emitted>?
    do throws(Step.Failure) {
      result = try step?.step(input)
    } catch {
      end(.failure(error))
      return .none
    }
    switch result {
    case .emit(let output): return downstream.receive(output)
    case .drop: return .max(1)
    case .finish: end(.finished)
    case nil: break
    }
    return .none
  }

  @inlinable
  func receive(completion: Subscribers.Completion<Failure>) {
    switch phase.admitCompletion(Step.kind) {
    case .handle:
      let downstream = self.downstream
      release()
      downstream?.receive(completion: completion.mapFailure { Step.failure($0) })
    case .ignore: break
    case .release: release()
    }
  }

  /// Cancels upstream and completes downstream, unless downstream has cancelled (or, for some
  /// operators, the subscription is still to come: see `CombineSubscriptionKind`).
  @inlinable
  func end(_ completion: Subscribers.Completion<Step.Failure>) {
    guard let ending = phase.end(Step.kind) else { return }
    let downstream = self.downstream
    release()
    if ending.cancelsUpstream { upstream?.cancel() }
    if ending.completesDownstream { downstream?.receive(completion: completion) }
  }

  /// Lets go of what upstream's calls use.
  @inlinable
  func release() {
    downstream = nil
    step = nil
  }

  // MARK: Subscription (downstream's calls, from any thread)

  @usableFromInline
  func request(_ demand: Subscribers.Demand) {
    handle(self, .demand(demand))
  }

  @usableFromInline
  func cancel() {
    handle(self, .cancel)
  }

  @inlinable
  func handleDemand(_ demand: Subscribers.Demand) {
    if phase.admitRequest(demand, Step.kind) { upstream?.request(demand) }
  }

  @inlinable
  func handleCancel() {
    if phase.cancel(Step.kind) { upstream?.cancel() }
  }

  // MARK: Reflection

  /// A debugging aid, as in Combine: it reads the step and the subscriber without
  /// synchronization, so it is meant for a stream that is not delivering at the time.
  @usableFromInline
  var customMirror: Mirror {
    let reflection = FallibleReflection(
      downstream: downstream.map { $0 as Any } ?? downstream as Any, finished: phase.hasEnded, status: phase.name,
      upstream: upstream.map { $0 as Any } ?? upstream as Any)
    return Mirror(self, children: Step.mirrorChildren(of: step, reflection))
  }
}

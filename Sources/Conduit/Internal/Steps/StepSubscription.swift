import Synchronization

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
  CustomPlaygroundDisplayConvertible, CensusScoped
{
  @usableFromInline
  typealias Step = Inner.Step

  // Fields with unchecked exclusivity skip the runtime check, which costs in "(0..<N).publisher -> map -> filter -> … -> sink".
  // Stored once by `accept(_:)` before `phase` says `subscribed`, and read by requests and
  // cancels only after they see that; kept until deinit (see `SubscriptionPhase`).
  @usableFromInline @exclusivity(unchecked)
  var upstream: (any Subscription)?
  @usableFromInline
  let phase = SubscriptionPhase()
  // The inner, for the mirror alone: set by the inner's init and cleared by its deinit, so that
  // it never points at a freed inner; not retained, so that downstream keeping the subscription
  // does not keep the inner. Read without synchronization (see `customMirror`).
  @usableFromInline
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

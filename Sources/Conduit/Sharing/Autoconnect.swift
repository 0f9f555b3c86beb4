import Synchronization

extension Publishers {
  /// A publisher that automatically connects to an upstream connectable publisher.
  ///
  /// It connects when the first subscriber attaches, and cancels the connection when the last
  /// subscriber has cancelled; a later subscriber connects again. As in Combine, a subscriber
  /// that completes is not counted out: once the upstream has completed, the connection stays,
  /// and a later subscriber gets the completion without connecting again.
  ///
  /// ```swift
  /// let timer = connectable.autoconnect()
  /// let cancellable = timer.sink { print($0) }   // connects here
  /// ```
  public final class Autoconnect<Upstream: ConnectablePublisher>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    @usableFromInline
    struct State {
      @usableFromInline
      var subscribers = 0
      @usableFromInline
      var connection: (any Cancellable)?
      /// Which thread connects or disconnects (see `reconcile()`); a thread that changes
      /// `subscribers` meanwhile leaves the connection to it.
      @usableFromInline
      var reconciliation = DeliveryOwnership()

      @inlinable
      init() {}
    }

    /// What `reconcile()` does next.
    @usableFromInline
    enum ReconcileStep {
      case connect
      case disconnect(any Cancellable)
    }

    /// The publisher from which this publisher receives elements.
    public final let upstream: Upstream

    // Guarded by its own lock.
    @usableFromInline
    let state = Locked(State())

    /// Creates a publisher that automatically connects to an upstream connectable publisher.
    @inlinable
    public init(upstream: Upstream) {
      self.upstream = upstream
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      state.withLock { $0.subscribers += 1 }
      upstream.subscribe(Inner(membership: Membership(parent: self, downstream: subscriber), downstream: subscriber))
      reconcile()
    }

    /// Connects while someone is subscribed and nothing is connected, and cancels the connection
    /// once everyone has gone, until the two agree.
    ///
    /// One thread at a time does this, and calls `connect()` and `cancel()` outside the lock; a
    /// thread that finds another doing it leaves the work to that one, which sees the change
    /// before it stops. So there is never more than one connection (two would each send every
    /// value to the subject), and a connection is cancelled before the next one is made. A
    /// subscriber that joins while the last one leaves, or from inside the first one's
    /// `receive(subscription:)`, shares the connection that is made for it.
    /// Connects while there are subscribers and no connection, and disconnects while there is a
    /// connection and no subscribers, as the owner of `reconciliation`: a thread that finds
    /// another reconciling leaves the change it made to that thread.
    ///
    /// Inlinable so that the upstream subscription `connect()` makes is specialized.
    @inlinable
    func reconcile() {
      guard state.withLock({ $0.reconciliation.claim() }) else { return }
      state.drain(
        { state -> NextDelivery<ReconcileStep> in
          if state.subscribers > 0, state.connection == nil { return .perform(.connect) }
          if state.subscribers == 0, let connection = state.connection {
            state.connection = nil
            return .perform(.disconnect(connection))
          }
          state.reconciliation.giveBack()
          return .stop
        },
        perform: { step in
          switch step {
          case .connect:
            let connection = upstream.connect()
            state.withLock { $0.connection = connection }
          case .disconnect(let connection):
            connection.cancel()
          }
        })
    }

    @usableFromInline
    func subscriberLeft() {
      state.withLock { $0.subscribers -= 1 }
      reconcile()
    }
  }
}

// Sendable only when the upstream and its values are: subscribers on any thread share the
// upstream's connection and what it sends. The count and the connection are guarded by `state`'s
// lock.
extension Publishers.Autoconnect: Sendable where Upstream: Sendable, Upstream.Output: Sendable {}

extension Publishers.Autoconnect {
  /// One subscriber's place among the autoconnect's subscribers. It is the subscription the
  /// subscriber sees, wrapping the upstream's so that a cancel counts the subscriber out exactly
  /// once; values do not pass through it.
  ///
  /// As in Combine, it passes for the upstream's subscription: the same description and
  /// identifier, requests forwarded as they come (`.none` included), and every cancel forwarded,
  /// even after the completion. The completion does not count the subscriber out: as in Combine,
  /// the connection stays until the subscribers cancel, so one that comes after the upstream has
  /// completed receives the completion from the connectable publisher rather than connecting
  /// again.
  @usableFromInline
  final class Membership: Subscription, CustomStringConvertible, CustomPlaygroundDisplayConvertible, CensusScoped {
    // Immutable.
    @usableFromInline
    let parent: Publishers.Autoconnect<Upstream>
    // Guarded by its own lock: the upstream's subscription, once it has arrived.
    @usableFromInline
    let upstream = Locked<(any Subscription)?>(nil)
    // Whether the subscriber has been counted out.
    @usableFromInline
    let left = Atomic<Bool>(false)
    @usableFromInline
    let census: CensusToken

    @usableFromInline
    var description: String { upstream.withLock { $0 }.map { String(describing: $0) } ?? "Autoconnect" }
    @usableFromInline
    var playgroundDescription: Any { description }
    @usableFromInline
    var censusScope: CensusScope? { census.scope }
    @usableFromInline
    var combineIdentifier: CombineIdentifier {
      upstream.withLock { $0 }?.combineIdentifier ?? CombineIdentifier(self)
    }

    @inlinable
    init(parent: Publishers.Autoconnect<Upstream>, downstream: some Subscriber) {
      census = CensusToken(Membership.self, inheritingFrom: downstream)
      self.parent = parent
    }

    /// Takes the upstream subscription; `false` if this is a second one.
    @usableFromInline
    func attach(_ subscription: any Subscription) -> Bool {
      upstream.withLock { upstream in
        guard upstream == nil else { return false }
        upstream = subscription
        return true
      }
    }

    @usableFromInline
    func request(_ demand: Subscribers.Demand) {
      upstream.withLock { $0 }?.request(demand)
    }

    @usableFromInline
    func cancel() {
      if !left.exchange(true, ordering: .acquiringAndReleasing) { parent.subscriberLeft() }
      upstream.withLock { $0 }?.cancel()
    }
  }
}

extension Publishers.Autoconnect {
  @usableFromInline
  typealias Inner<Downstream: Subscriber> = AutoconnectInner<AutoconnectTypes<Upstream, Downstream>>
  where Downstream.Input == Output, Downstream.Failure == Failure
}

/// The types the subscriber of `autoconnect()` works with: an `OperatorLink` that also names
/// the connectable publisher, whose `Publishers.Autoconnect` counts the subscriber in and out.
@usableFromInline
protocol AutoconnectLink: OperatorLink {
  /// The connectable publisher subscribed to.
  associatedtype Upstream: ConnectablePublisher where Upstream.Output == Input, Upstream.Failure == Failure
}

/// The `AutoconnectLink` of a subscriber to `Upstream` that sends on to `Downstream`. Never
/// instantiated.
@usableFromInline
enum AutoconnectTypes<Upstream: ConnectablePublisher, Downstream: Subscriber>: AutoconnectLink {
  @usableFromInline
  typealias Input = Upstream.Output
  @usableFromInline
  typealias Failure = Upstream.Failure
}

/// Subscribes to the upstream on behalf of one subscriber. Values and completions go straight
/// through, as in Combine; a second subscription is cancelled.
///
/// Described and reflected as Combine's: "Autoconnect", with the autoconnect publisher as
/// `parent` and the subscriber as `downstream`.
///
/// Generic over one `AutoconnectLink`, so that a pipeline repeating the operator stays
/// specialized (see `OperatorLink`).
@usableFromInline
struct AutoconnectInner<Types: AutoconnectLink>: Subscriber, CustomStringConvertible, CustomReflectable,
  CustomPlaygroundDisplayConvertible
where Types.Downstream.Input == Types.Input, Types.Downstream.Failure == Types.Failure {
  @usableFromInline
  typealias Input = Types.Input
  @usableFromInline
  typealias Failure = Types.Failure
  @usableFromInline
  typealias Downstream = Types.Downstream
  @usableFromInline
  typealias Membership = Publishers.Autoconnect<Types.Upstream>.Membership

  @usableFromInline
  let membership: Membership
  @usableFromInline
  let downstream: Downstream

  @inlinable
  init(membership: Membership, downstream: Downstream) {
    self.membership = membership
    self.downstream = downstream
  }

  @usableFromInline
  var description: String { "Autoconnect" }

  @usableFromInline
  var playgroundDescription: Any { description }

  @usableFromInline
  var customMirror: Mirror {
    Mirror(self, children: [("parent", membership.parent as Any), ("downstream", downstream as Any)])
  }

  @usableFromInline
  var combineIdentifier: CombineIdentifier { CombineIdentifier(membership) }

  @usableFromInline
  func receive(subscription: any Subscription) {
    guard membership.attach(subscription) else {
      subscription.cancel()
      return
    }
    downstream.receive(subscription: membership)
  }

  @inlinable
  func receive(_ input: Input) -> Subscribers.Demand {
    downstream.receive(input)
  }

  @usableFromInline
  func receive(completion: Subscribers.Completion<Failure>) {
    downstream.receive(completion: completion)
  }
}

extension ConnectablePublisher {
  /// Automates the process of connecting or disconnecting from this connectable publisher.
  ///
  /// ```swift
  /// let shared = publisher.multicast { PassthroughSubject() }.autoconnect()
  /// ```
  @inlinable
  public func autoconnect() -> Publishers.Autoconnect<Self> {
    Publishers.Autoconnect(upstream: self)
  }
}

extension AutoconnectInner: CensusTransparent {
  /// What is created on this subscriber's behalf joins the census scope of its downstream.
  @usableFromInline
  var censusWrapped: Any? { downstream }
}

import Synchronization

/// The decisions of `merge`, `zip` and `combineLatest`: which upstreams run, what the downstream
/// has asked for, which outputs wait for it, when the subscription finishes, and what the
/// upstreams are to be asked. Its event methods return what the `CombiningSubscription` does
/// next (an `Action`); the machine itself never calls out.
///
/// The machine belongs to whichever thread owns its subscription (see `CombiningSubscription`),
/// so it needs no lock of its own.
///
/// ```
///             value, subscription, demand            ready empty
///   active ─────────────────────────────── finishing ───────────── done
///      │      the strategy is exhausted                 (.finish)   ▲
///      └──────────────────────────────────────────────────────────┘
///                 a failure (.fail) or a cancel (.release)
/// ```
@usableFromInline
struct CombiningStateMachine<Strategy: CombiningStrategy> {
  @usableFromInline
  typealias Output = Strategy.Output

  @usableFromInline
  enum Phase {
    case active
    /// No output can come any more; the completion follows what waits in `ready`.
    case finishing
    /// Completed, failed or cancelled: the upstreams and every value are forgotten.
    case done
  }

  /// What a `CombiningSubscription` does once the machine has decided. An output
  /// to deliver travels beside it (see `Delivery`), so that this enum stays
  /// trivial to copy on the path of every value.
  @usableFromInline
  enum Action: Equatable {
    case none
    /// No output can come: cancel the upstreams still running.
    case stopUpstreams
    /// Upstream `index` finished: it no longer runs. Then `stopUpstreams` if `stopping`.
    case forget(Int, stopping: Bool)
    /// An upstream failed: forget upstream `forgetting`, if any, cancel the upstreams still
    /// running, then send the failure downstream and let go of it.
    case fail(forgetting: Int?)
    /// Everything has gone down: cancel the upstreams still running, then send `.finished`
    /// downstream and let go of it.
    case finish
    /// Cancelled: cancel the upstreams still running and let go of the downstream.
    case release
  }

  /// What the owner of a `CombiningSubscription` asks of the upstreams once it has let go, so
  /// that a synchronous upstream delivers through the uncontended path rather than into the queue.
  @usableFromInline
  struct Requests {
    /// Asked of every upstream in `targets`, less what was `returned` to it.
    @usableFromInline
    var ask = Subscribers.Demand.none
    /// Parts of `ask` already returned to an upstream, from the `receive(_:)` that was on the
    /// stack when the downstream asked. The owner that sends the requests may be another thread,
    /// on another upstream's stack, when delivery changed hands in between.
    @usableFromInline
    var returned: [(index: Int, demand: Subscribers.Demand)] = []
    /// The upstreams when the owner let go.
    @usableFromInline
    var targets: [(any Subscription)?] = []
    /// The first request of upstreams that subscribed.
    @usableFromInline
    var starts: [(any Subscription, Subscribers.Demand)] = []

    @inlinable
    init() {}

    /// Makes the requests.
    @inlinable
    func send() {
      for (subscription, demand) in starts { subscription.request(demand) }
      guard ask > 0 else { return }
      for (index, upstream) in targets.enumerated() {
        guard let upstream else { continue }
        var due = ask
        for part in returned where part.index == index {
          due = part.demand == .unlimited ? .none : due - part.demand
        }
        if due > 0 { upstream.request(due) }
      }
    }
  }

  /// How the upstream whose value makes an output is asked for its next value as the output goes
  /// down: a merge asks one value at a time (see `CombiningStrategy.requestsOneAtATime`).
  @usableFromInline
  enum NextRequest: Equatable {
    case none
    /// The upstream whose `receive(_:)` is on the stack: its one value is returned from that call.
    case owed
    /// Upstream `index`, asked with `request(.max(1))`.
    case request(Int)
  }

  /// An output to send downstream (its demand is spent), and how its upstream is asked for the
  /// next value; what the downstream returns goes to `demand(_:side:)`.
  @usableFromInline
  typealias Delivery = (output: Output, next: NextRequest)

  @usableFromInline
  var phase = Phase.active
  /// Holds the slots (`zip`, `combineLatest`), inline.
  @usableFromInline
  var strategy: Strategy
  /// The upstream subscriptions, by index; `nil` before one subscribes and after it finishes.
  @usableFromInline
  var upstreams: [(any Subscription)?]
  /// Which upstreams have finished, by index.
  @usableFromInline
  var finished: [Bool]
  /// How many have.
  @usableFromInline
  var finishedCount = 0
  /// Outputs made and not yet delivered, with the upstream whose value made each.
  @usableFromInline
  var ready = ValueQueue<(source: Int, output: Output)>()
  /// Downstream demand not yet spent.
  @usableFromInline
  var demand = Subscribers.Demand.none
  /// Everything the downstream has requested: what an upstream that subscribes late is asked
  /// for when requests are passed through.
  @usableFromInline
  var requested = Subscribers.Demand.none
  /// One value at a time is over: every upstream was asked for `.unlimited`.
  @usableFromInline
  var upstreamsUnlimited = false
  /// What to ask of the upstreams once the owner lets go.
  @usableFromInline
  var pending: Requests?

  @inlinable
  init(strategy: Strategy, upstreamCount: Int) {
    self.strategy = strategy
    upstreams = .upstreams(repeating: nil, count: upstreamCount)
    finished = .upstreams(repeating: false, count: upstreamCount)
  }

  /// Whether the owner has nothing left to do but let go, as long as nothing was posted: no
  /// output it could deliver, no completion due, nothing to ask of the upstreams.
  @inlinable @inline(__always)
  var isSettled: Bool {
    switch phase {
    case .active: return pending == nil && (ready.isEmpty || demand == .none)
    case .finishing: return false
    case .done: return pending == nil
    }
  }

  // MARK: Events

  /// Whether a value is still taken into the strategy: the subscription calls
  /// `strategy.combine` only then, and passes what it returns to `value(_:from:direct:)`.
  ///
  /// The subscription combines the value itself, where the value's type is known, rather than
  /// through a closure or a generic method of the machine: the type grows from one nested
  /// combining operator to the next, and a closure that takes it is not inlined (see
  /// `OperatorLink`).
  @inlinable @inline(__always)
  var takesValues: Bool {
    if case .active = phase { return true }
    return false
  }

  /// Upstream `index` delivered a value, which completed `output` (or nothing). With `direct`,
  /// an output that nothing waits before is returned, to go straight down; otherwise it waits
  /// in `ready`, for `next(side:)`.
  @inlinable @inline(__always)
  mutating func value(
    _ output: Output?, from index: Int, direct: Bool
  ) -> (action: Action, delivery: Delivery?) {
    guard case .active = phase, let output else { return (.none, nil) }
    if direct, ready.isEmpty, demand > 0, !(Strategy.exhaustsOnValues && isExhausted) {
      demand -= 1
      return (.none, (output, nextRequest(source: index, side: index)))
    }
    if !Strategy.dropsOutputWithoutDemand || demand > ready.count {
      ready.append((index, output))
    }
    return (isExhausted ? end(.finishing) : .none, nil)
  }

  /// Whether a subscription from upstream `index` is to be kept: the subscription is active
  /// and that upstream has neither subscribed nor finished. If so, the subscription registers
  /// it and calls `attach(_:at:)`; if not, it cancels it.
  @inlinable
  func admits(at index: Int) -> Bool {
    guard case .active = phase else { return false }
    return upstreams[index] == nil && !finished[index]
  }

  /// Keeps the subscription of upstream `index`, and notes its first request.
  @inlinable
  mutating func attach(_ subscription: any Subscription, at index: Int) {
    upstreams[index] = subscription
    let first: Subscribers.Demand
    if Strategy.requestsOneAtATime {
      first = upstreamsUnlimited ? .unlimited : .max(1)
    } else {
      // What is still to be asked of the other upstreams is asked of this one too.
      first = requested - (pending?.ask ?? .none)
    }
    if first > 0 { note { $0.starts.append((subscription, first)) } }
  }

  /// Upstream `index` completed, having finished or failed.
  @inlinable
  mutating func completion(finished: Bool, at index: Int) -> Action {
    guard case .active = phase else { return .none }
    upstreams[index] = nil
    if !self.finished[index] {
      self.finished[index] = true
      finishedCount += 1
    }
    guard finished else {
      _ = end(.done)
      return .fail(forgetting: Strategy.cancelsFailedUpstream ? nil : index)
    }
    let stopping = isExhausted
    if stopping { _ = end(.finishing) }
    return .forget(index, stopping: stopping)
  }

  /// The downstream asked for `more`. Returns the part owed to upstream `side`, whose
  /// `receive(_:)` is on the stack; what the other upstreams are to be asked is noted in
  /// `pending`.
  @inlinable
  mutating func demand(_ more: Subscribers.Demand, side: Int?) -> Subscribers.Demand {
    switch phase {
    case .active: break
    case .finishing:
      demand += more
      return .none
    case .done: return .none
    }
    demand += more
    requested += more
    let ask: Subscribers.Demand
    if Strategy.requestsOneAtATime {
      guard more == .unlimited, !upstreamsUnlimited else { return .none }
      upstreamsUnlimited = true
      ask = .unlimited
    } else {
      ask = more
    }
    guard Strategy.returnsDemandToSender, let side, upstreams[side] != nil else {
      note { $0.ask += ask }
      return .none
    }
    note {
      $0.ask += ask
      $0.returned.append((side, ask))
    }
    return ask
  }

  /// The downstream cancelled.
  @usableFromInline
  mutating func cancel() -> Action {
    switch phase {
    case .done: return .none
    case .active, .finishing:
      _ = end(.done)
      return .release
    }
  }

  /// A merge of no publishers has nothing to wait for.
  @inlinable
  mutating func noUpstreams() -> Action {
    guard case .active = phase, isExhausted else { return .none }
    return end(.finishing)
  }

  /// The output that goes down next, if the downstream has demand for it, from `ready`.
  /// `side` is the upstream whose `receive(_:)` is on the stack, if any.
  @inlinable
  mutating func next(side: Int?) -> Delivery? {
    switch phase {
    case .done:
      return nil
    case .active, .finishing:
      guard demand > 0, let next = ready.popFirst() else { return nil }
      demand -= 1
      return (next.output, nextRequest(source: next.source, side: side))
    }
  }

  /// Once `next(side:)` has nothing to deliver: `.finish` when no output can come any more and
  /// none waits.
  @inlinable
  mutating func settle() -> Action {
    guard case .finishing = phase, ready.isEmpty else { return .none }
    _ = end(.done)
    return .finish
  }

  /// Hands over what the upstreams are to be asked, with the upstreams to ask, as the owner
  /// tries to let go; `nil` when there is nothing to ask.
  @inlinable @inline(__always)
  mutating func takeRequests() -> Requests? {
    guard var requests = pending.take() else { return nil }
    if requests.ask > 0 { requests.targets = upstreams }
    return requests
  }

  /// Takes back what `takeRequests()` handed over, when the owner could not let go: it is asked
  /// on the next attempt.
  @inlinable @inline(__always)
  mutating func restore(_ requests: Requests) {
    pending = requests
  }

  // MARK: Helpers

  /// Whether no output can come any more, as the strategy says.
  @inlinable @inline(__always)
  var isExhausted: Bool {
    strategy.isExhausted(finished: finished, finishedCount: finishedCount)
  }

  @inlinable @inline(__always)
  func nextRequest(source: Int, side: Int?) -> NextRequest {
    guard Strategy.requestsOneAtATime, !upstreamsUnlimited, case .active = phase,
      upstreams[source] != nil
    else { return .none }
    return source == side ? .owed : .request(source)
  }

  @inlinable
  mutating func note(_ change: (inout Requests) -> Void) {
    if pending == nil { pending = Requests() }
    change(&pending!)
  }

  /// Moves to `next` and forgets every value held (the outputs in `ready` too, unless only
  /// finishing) and the upstreams, which are then asked for nothing more. Returns the action
  /// that cancels those still running.
  @usableFromInline
  mutating func end(_ next: Phase) -> Action {
    if case .done = next { ready.removeAll() }
    phase = next
    pending = nil
    strategy.release()
    upstreams = []
    return .stopUpstreams
  }
}

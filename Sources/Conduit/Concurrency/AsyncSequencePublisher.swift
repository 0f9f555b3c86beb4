import Synchronization

/// A publisher that publishes the elements of an asynchronous sequence.
///
/// This is an extension to Combine, which has no bridge from `AsyncSequence` to `Publisher`.
///
/// Each subscription iterates the sequence with an iterator of its own, in a `Task` of its own,
/// and delivers elements from that task, as `receive(on:)` delivers from its scheduler. The
/// sequence must be `Sendable` because each subscription hands its copy to that task: a
/// sequence whose copies share mutable state would otherwise be iterated by several tasks at
/// once (two subscriptions, or a subscription and the code that made the publisher), and one
/// whose conformance is isolated to an actor would be iterated off that actor.
///
/// The task starts at the first demand, once `receive(subscription:)` has returned, and asks
/// the sequence for the next element only while the subscriber has demand outstanding:
/// back-pressure reaches the sequence. Requesting `.none` is accepted and changes nothing, as
/// with `Publishers.Sequence`. When the sequence throws, the publisher fails with the error,
/// typed as the sequence's `Failure`; a sequence that never throws gives a publisher whose
/// `Failure` is `Never`.
///
/// The publisher learns that the sequence has ended when it asks for an element beyond the last,
/// which it does only with demand. So a subscriber that has requested exactly as many elements
/// as the sequence has receives `.finished` only at its next request, and one that waits for
/// the completion before requesting more stalls. A subscriber with unlimited demand (`sink`,
/// say) always has demand left, and receives `.finished` as soon as the sequence ends.
///
/// Cancelling cancels the task, so a cancellation-aware sequence (`AsyncStream`, say) stops
/// waiting at once, and lets go of the subscriber. A sequence learns of a cancellation only
/// inside `next()`, so whenever the cancel comes (before the task has started, while it waits
/// for demand, or between two pulls) the subscription calls `next()` once more in the cancelled
/// task and drops what it returns: an `AsyncStream`'s `onTermination` runs, and its producer
/// stops. A sequence that ignores cancellation keeps that last task until its `next()` returns. Nothing reaches the subscriber after a
/// `cancel()` made from inside its own `receive(_:)`. A `cancel()` from another thread may cross
/// a delivery already under way: the element whose delivery had begun still arrives (but no
/// element pulled after it), and so may the completion, finished or failed, whose delivery had
/// begun; the error a sequence throws because it was cancelled is not delivered once `cancel()`
/// has returned.
///
/// ```swift
/// let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
/// let cancellable = stream.publisher.sink { print($0) }
/// continuation.yield(1)
/// continuation.finish()
/// ```
public struct AsyncSequencePublisher<Base: AsyncSequence & Sendable>: Publisher, Sendable {
  /// The kind of values published by this publisher: the sequence's elements.
  public typealias Output = Base.Element
  /// The kind of errors this publisher might publish: the sequence's, `Never` if it never throws.
  public typealias Failure = Base.Failure

  /// The asynchronous sequence whose elements this publisher publishes.
  public let base: Base

  /// Creates a publisher of the elements of an asynchronous sequence.
  ///
  /// This is an extension to Combine.
  ///
  /// ```swift
  /// let publisher = AsyncSequencePublisher(AsyncStream<Int> { $0.finish() })
  /// ```
  @inlinable
  public init(_ base: Base) {
    self.base = base
  }

  /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
  @inlinable
  public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    let subscription = AsyncSequenceSubscription(base: base, downstream: subscriber)
    subscriber.receive(subscription: subscription)
    subscription.subscribed()
  }
}

extension AsyncSequence where Self: Sendable {
  /// A publisher of this asynchronous sequence's elements.
  ///
  /// This is an extension to Combine. See ``AsyncSequencePublisher`` for how demand and
  /// cancellation reach the sequence.
  ///
  /// ```swift
  /// let cancellable = AsyncStream<Int> { continuation in
  ///     continuation.yield(1)
  ///     continuation.finish()
  /// }.publisher.sink { print($0) }
  /// ```
  public var publisher: AsyncSequencePublisher<Self> {
    AsyncSequencePublisher(self)
  }
}

/// One subscriber's iteration of an asynchronous sequence: a task that pulls an element only
/// while there is demand, and delivers it.
///
/// The decisions are `AsyncSequenceSubscriptionStateMachine`'s, taken under `state`'s lock; the
/// calls out (the task's start and cancellation, the wake-up of the task waiting for demand, the
/// deliveries) happen after it. The task is the only caller of the downstream, and it starts
/// only once `receive(subscription:)` has returned, so calls into the downstream never overlap.
/// The downstream lives in the machine, not in the task: the task takes it out under the lock
/// for each delivery only, so a cancel lets go of it at once, even while the task is suspended
/// inside the sequence's `next()`.
@usableFromInline
final class AsyncSequenceSubscription<Base: AsyncSequence & Sendable, Downstream: Subscriber>:
  TaskOwningSubscription<Base>, Subscription, CustomStringConvertible, CustomPlaygroundDisplayConvertible,
  CensusScoped, @unchecked Sendable
where Downstream.Input == Base.Element, Downstream.Failure == Base.Failure {
  @usableFromInline
  typealias Machine = AsyncSequenceSubscriptionStateMachine<
    Downstream, Base, Task<Void, Never>, UnsafeContinuation<Void, Never>
  >

  // Guarded by its own lock.
  @usableFromInline
  let state: Locked<Machine>
  // Set by `cancel`, read without the lock by the task before each pull: the machine has the
  // say, this only spares the sequence a pull after a cancel made from inside `receive(_:)`.
  @usableFromInline
  let cancelled = Atomic<Bool>(false)
  @usableFromInline
  let census: CensusToken

  @usableFromInline
  var description: String { "AsyncSequence" }
  @usableFromInline
  var playgroundDescription: Any { description }
  @usableFromInline
  var censusScope: CensusScope? { census.scope }

  @inlinable
  init(base: Base, downstream: Downstream) {
    census = CensusToken(AsyncSequenceSubscription.self, inheritingFrom: downstream)
    state = Locked(Machine(downstream: downstream, base: base))
    super.init()
  }

  /// `receive(subscription:)` has returned: the task may start, if demand came meanwhile.
  @inlinable
  func subscribed() {
    perform(state.withLock { $0.subscribed() })
  }

  @inlinable
  func request(_ demand: Subscribers.Demand) {
    // As in `Publishers.Sequence`, a request for nothing changes nothing.
    guard demand != .none else { return }
    perform(state.withLock { $0.request(demand) })
  }

  @inlinable
  func cancel() {
    perform(state.withLock { $0.cancel() })
  }

  @inlinable
  func perform(_ action: Machine.Action) {
    switch action {
    case .none:
      break
    case .start(let base):
      let task = startTask(running: base)
      perform(state.withLock { $0.taskStarted(task) })
    case .resume(let waiter):
      waiter.resume()
    case .cancelTask(let task):
      task.cancel()
    case .end(let released):
      cancelled.store(true, ordering: .relaxed)
      released.task?.cancel()
      released.waiter?.resume()
      // Cancelled before the task started: the sequence still hears of it.
      if let base = released.base { tellCancelledBeforeIterating(base) }
      // What the machine held leaves here, after the lock: the subscriber's deinit may call back in.
      withExtendedLifetime(released) {}
    }
  }

  /// The task's loop: pulls an element while demand lasts, delivers it, and waits for demand
  /// when there is none, until the sequence ends or the subscription is cancelled.
  @inlinable
  override func run(_ base: Base) async {
    var iterator = base.makeAsyncIterator()
    // Demand taken out of the machine, with what the downstream returns added to it; the
    // machine is asked again only when it is spent.
    var budget = Subscribers.Demand.none
    while true {
      if budget == .none {
        switch state.withLock({ $0.takeDemand() }) {
        case .pull(let granted):
          budget = granted
        case .wait:
          await waitForDemand()
          continue
        case .stop:
          await Self.tellCancelled(&iterator)
          return
        }
      }
      // After a cancel from inside the last `receive(_:)`, the next pull only tells the sequence.
      guard !cancelled.load(ordering: .relaxed) else {
        await Self.tellCancelled(&iterator)
        return
      }
      let element: Base.Element?
      do throws(Base.Failure) {
        element = try await iterator.next(isolation: nil)
      } catch {
        complete(.failure(error))
        return
      }
      guard let element else {
        complete(.finished)
        return
      }
      guard let downstream = state.withLock({ $0.downstreamForElement() }) else {
        // Cancelled while the element was being pulled: it is dropped, and the sequence told.
        await Self.tellCancelled(&iterator)
        return
      }
      if budget != .unlimited { budget -= 1 }
      budget += downstream.receive(element)
    }
  }

  /// Tells a sequence the subscription was cancelled, the one way a sequence can hear it: a call
  /// of `next()` in a cancelled task, whose result is dropped. The task cancels itself first: the
  /// cancel that ended the subscription may not have reached it yet, and a `next()` that finds an
  /// element buffered returns it without hearing of a cancel that comes after.
  @inlinable
  static func tellCancelled(_ iterator: inout Base.AsyncIterator) async {
    withUnsafeCurrentTask { $0?.cancel() }
    _ = try? await iterator.next(isolation: nil)
  }

  @inlinable
  func waitForDemand() async {
    await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
      perform(state.withLock { $0.wait(continuation) })
    }
  }

  @inlinable
  func complete(_ completion: Subscribers.Completion<Base.Failure>) {
    guard let released = state.withLock({ $0.finish() }) else { return }
    released.downstream?.receive(completion: completion)
    withExtendedLifetime(released) {}
  }
}

/// Tells a sequence whose iteration never started that its subscription was cancelled: calls
/// `next()` once, from a task of its own that holds only the sequence and cancels itself first.
@usableFromInline
func tellCancelledBeforeIterating<Base: AsyncSequence & Sendable>(_ base: Base) {
  Task {
    withUnsafeCurrentTask { $0?.cancel() }
    var iterator = base.makeAsyncIterator()
    _ = try? await iterator.next(isolation: nil)
  }
}

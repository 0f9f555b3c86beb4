import Conduit
import Synchronization

/// A publisher a test drives by hand, for the flatMap, switchToLatest, catch, retry and buffer
/// suites: it records, for every subscription it hands out, the demand requested and whether it
/// was cancelled, and sends values and completions to its latest subscriber when told to. It
/// does not enforce demand: tests compare what was requested with what they send.
final class HandDrivenPublisher<Output, Failure: Error>: Publisher, @unchecked Sendable {
  /// One subscription handed out.
  final class Link: Subscription, CustomStringConvertible, @unchecked Sendable {
    private struct State {
      var subscriber: AnySubscriber<Output, Failure>?
      var requests: [Subscribers.Demand] = []
      var cancelled = false
    }

    private let state: Locked<HandDrivenBox<State>>

    init(_ subscriber: AnySubscriber<Output, Failure>) {
      state = Locked(HandDrivenBox(State(subscriber: subscriber)))
    }

    var description: String { "HandDriven" }

    /// Every demand requested through this subscription, in order.
    var requests: [Subscribers.Demand] { state.withLock { $0.value.requests } }

    /// The sum of the demand requested.
    var requested: Subscribers.Demand { requests.reduce(.none, +) }

    var isCancelled: Bool { state.withLock { $0.value.cancelled } }

    /// Whether the subscriber is still attached (neither completed nor cancelled).
    var isActive: Bool { state.withLock { $0.value.subscriber != nil } }

    func request(_ demand: Subscribers.Demand) {
      state.withLock { $0.value.requests.append(demand) }
    }

    func cancel() {
      state.withLock { box in
        box.value.cancelled = true
        box.value.subscriber = nil
      }
    }

    @discardableResult
    func send(_ value: Output) -> Subscribers.Demand {
      let subscriber = state.withLock { $0.value.subscriber }
      return subscriber?.receive(value) ?? .none
    }

    func send(completion: Subscribers.Completion<Failure>) {
      let subscriber = state.withLock { box in
        defer { box.value.subscriber = nil }
        return box.value.subscriber
      }
      subscriber?.receive(completion: completion)
    }
  }

  private let linksState = Locked(HandDrivenBox([Link]()))

  init() {}

  /// Every subscription handed out, oldest first.
  var links: [Link] { linksState.withLock { $0.value } }

  /// The latest subscription handed out.
  var link: Link? { links.last }

  var subscriptionCount: Int { links.count }

  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    let link = Link(AnySubscriber(subscriber))
    linksState.withLock { $0.value.append(link) }
    subscriber.receive(subscription: link)
  }

  /// Sends a value to the latest subscriber and returns the demand it answered with.
  @discardableResult
  func send(_ value: Output) -> Subscribers.Demand {
    link?.send(value) ?? .none
  }

  /// Completes the latest subscription.
  func send(completion: Subscribers.Completion<Failure>) {
    link?.send(completion: completion)
  }
}

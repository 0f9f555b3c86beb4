import Synchronization

/// Delivers one value and then `.finished` as soon as the subscriber demands anything.
///
/// Shared by `Just`, `Optional.Publisher`, `Result.Publisher` and `Future`.
@usableFromInline
final class SingleValueSubscription<Downstream: Subscriber>: Subscription, SubscriptionRequestHandler,
  CustomStringConvertible, CensusScoped, @unchecked Sendable
{
  @usableFromInline
  enum State {
    case pending(Downstream, Downstream.Input)
    /// The value is out; the completion follows unless the subscriber cancels meanwhile.
    case delivering(Downstream)
    case terminal
  }

  // Guarded by its own lock.
  @usableFromInline
  let state: Locked<State>
  @usableFromInline
  let census: CensusToken
  // Specialized `request` and `cancel`; see `SubscriptionRequest`.
  @usableFromInline
  let handle: (SingleValueSubscription, SubscriptionRequest) -> Void
  @usableFromInline
  let description: String

  @usableFromInline
  var censusScope: CensusScope? { census.scope }

  @inlinable
  init(_ value: Downstream.Input, downstream: Downstream, description: String) {
    census = CensusToken(SingleValueSubscription.self, inheritingFrom: downstream)
    state = Locked(.pending(downstream, value))
    self.description = description
    handle = SubscriptionRequest.dispatcher()
  }

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
    demand.assertPositive()
    let taken: (Downstream, Downstream.Input)? = state.withLock { state in
      guard case .pending(let downstream, let value) = state else { return nil }
      state = .delivering(downstream)
      return (downstream, value)
    }
    guard let (downstream, value) = taken else { return }
    _ = downstream.receive(value)
    let stillSubscribed = state.withLock { state -> Bool in
      guard case .delivering = state else { return false }
      state = .terminal
      return true
    }
    if stillSubscribed { downstream.receive(completion: .finished) }
  }

  @inlinable
  func handleCancel() {
    state.withLock { $0 = .terminal }
  }
}

extension Subscribers.Demand {
  /// Contract 2: requesting nothing is a programming error.
  @inlinable
  func assertPositive(file: StaticString = #file, line: UInt = #line) {
    precondition(
      rawValue > 0,
      "Subscription.request(.none): a subscriber must request a positive demand (.max(n) with n > 0, or .unlimited)",
      file: file, line: line)
  }
}

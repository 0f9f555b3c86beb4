import Synchronization

/// Delivers one value and then `.finished` as soon as the subscriber demands anything.
///
/// Shared by `Just`, `Optional.Publisher`, `Result.Publisher` and `Future`.
final class SingleValueSubscription<Downstream: Subscriber>: Subscription, CustomStringConvertible,
  CensusScoped, @unchecked Sendable
{
  private enum State {
    case pending(Downstream, Downstream.Input)
    /// The value is out; the completion follows unless the subscriber cancels meanwhile.
    case delivering(Downstream)
    case terminal
  }

  // Guarded by its own lock.
  private let state: Locked<State>
  private let census: CensusToken
  let description: String

  @usableFromInline
  var censusScope: CensusScope? { census.scope }

  init(_ value: Downstream.Input, downstream: Downstream, description: String) {
    census = CensusToken(SingleValueSubscription.self, inheritingFrom: downstream)
    state = Locked(.pending(downstream, value))
    self.description = description
  }

  func request(_ demand: Subscribers.Demand) {
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

  func cancel() {
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

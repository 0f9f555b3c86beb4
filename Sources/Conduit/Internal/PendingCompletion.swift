import Synchronization

/// A completion kept without naming its failure type; see `SubjectSubscription.pendingCompletion`.
@usableFromInline
enum PendingCompletion {
  case none
  case finished
  case failure(any Error)

  @inlinable
  init<Failure>(_ completion: Subscribers.Completion<Failure>) {
    switch completion {
    case .finished: self = .finished
    case .failure(let error): self = .failure(error)
    }
  }

  /// The completion, with the failure type it was stored with.
  @inlinable
  func completion<Failure>(failing: Failure.Type) -> Subscribers.Completion<Failure>? {
    switch self {
    case .none: nil
    case .finished: .finished
    case .failure(let error): .failure(error as! Failure)
    }
  }
}

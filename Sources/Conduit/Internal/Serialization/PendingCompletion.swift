import Synchronization

/// A completion kept without naming its failure type, so that a generic class holding one looks
/// up no metadata for it at teardown (see `SubjectState`).
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

  /// Whether no completion is kept.
  @inlinable
  var isNone: Bool {
    if case .none = self { true } else { false }
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

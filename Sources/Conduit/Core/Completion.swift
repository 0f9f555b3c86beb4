extension Subscribers {
  /// A signal that a publisher doesn't produce additional elements, either due to normal
  /// completion or an error.
  ///
  /// ```swift
  /// subject.send(completion: .finished)
  /// subject.send(completion: .failure(MyError.timeout))
  /// ```
  @frozen
  public enum Completion<Failure: Error> {
    /// The publisher finished normally.
    case finished

    /// The publisher stopped publishing due to the indicated error.
    case failure(Failure)
  }
}

extension Subscribers.Completion: Equatable where Failure: Equatable {}

extension Subscribers.Completion: Hashable where Failure: Hashable {}

extension Subscribers.Completion: Sendable {}

extension Subscribers.Completion {
  /// The same completion with its failure replaced: used by operators that change failure types.
  @inlinable
  func mapFailure<NewFailure: Error>(_ transform: (Failure) -> NewFailure) -> Subscribers.Completion<NewFailure> {
    switch self {
    case .finished: return .finished
    case .failure(let error): return .failure(transform(error))
    }
  }
}

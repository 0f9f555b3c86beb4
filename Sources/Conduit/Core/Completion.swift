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

  /// Whether the stream finished rather than failed, for state machines that need not know the
  /// error.
  @inlinable
  var isFinished: Bool {
    if case .finished = self { return true }
    return false
  }
}

extension Subscribers.Completion: Encodable where Failure: Encodable {
  /// Encodes the completion in Combine's format: `{"success": true}` for `.finished`, and
  /// `{"success": false, "error": …}` with the encoded error for `.failure`.
  ///
  /// ```swift
  /// let completion: Subscribers.Completion<MyCodableError> = .failure(.timeout)
  /// let data = try JSONEncoder().encode(completion)
  /// ```
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CompletionCodingKey.self)
    switch self {
    case .finished:
      try container.encode(true, forKey: .success)
    case .failure(let error):
      try container.encode(false, forKey: .success)
      try container.encode(error, forKey: .error)
    }
  }
}

extension Subscribers.Completion: Decodable where Failure: Decodable {
  /// Decodes a completion written in Combine's format (see `encode(to:)`). A failure without
  /// its error, or without the `success` flag, throws a `DecodingError`.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CompletionCodingKey.self)
    if try container.decode(Bool.self, forKey: .success) {
      self = .finished
    } else {
      self = .failure(try container.decode(Failure.self, forKey: .error))
    }
  }
}

/// The keys of an encoded `Subscribers.Completion`, as Combine names them.
private enum CompletionCodingKey: String, CodingKey {
  case success
  case error
}

/// A publisher that performs type erasure by wrapping another publisher.
///
/// Use it to expose a publisher across an API boundary without exposing its concrete type.
///
/// ```swift
/// var values: AnyPublisher<Int, Never> {
///     subject.eraseToAnyPublisher()
/// }
/// ```
@frozen
public struct AnyPublisher<Output, Failure: Error>: Publisher, CustomStringConvertible {
  @usableFromInline
  let box: AnyPublisherBoxBase<Output, Failure>

  /// Creates a type-erasing publisher to wrap the provided publisher.
  @inlinable
  public init<P: Publisher>(_ publisher: P) where P.Output == Output, P.Failure == Failure {
    if let erased = publisher as? AnyPublisher<Output, Failure> {
      box = erased.box
    } else {
      box = AnyPublisherBox(publisher)
    }
  }

  /// A textual representation of this instance.
  public var description: String { "AnyPublisher" }

  /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
  @inlinable @inline(__always)
  public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    box.receive(subscriber: subscriber)
  }
}

extension AnyPublisher: Sendable where Output: Sendable {}

extension Publisher {
  /// Wraps this publisher with a type eraser.
  ///
  /// ```swift
  /// let erased: AnyPublisher<Int, Never> = Just(1).eraseToAnyPublisher()
  /// ```
  @inlinable
  public func eraseToAnyPublisher() -> AnyPublisher<Output, Failure> {
    AnyPublisher(self)
  }
}

@usableFromInline
class AnyPublisherBoxBase<Output, Failure: Error>: @unchecked Sendable {
  @inlinable
  init() {}

  @inlinable
  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    fatalError("abstract")
  }
}

@usableFromInline
final class AnyPublisherBox<Base: Publisher>: AnyPublisherBoxBase<Base.Output, Base.Failure>,
  @unchecked Sendable
{
  @usableFromInline
  let base: Base

  @inlinable
  init(_ base: Base) {
    self.base = base
  }

  @inlinable
  override func receive<S: Subscriber>(subscriber: S)
  where S.Input == Base.Output, S.Failure == Base.Failure {
    base.receive(subscriber: subscriber)
  }
}

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
public struct AnyPublisher<Output, Failure: Error>: Publisher, CustomStringConvertible,
  CustomPlaygroundDisplayConvertible
{
  /// Subscribes an erased subscriber to the wrapped publisher. Built where the wrapped
  /// publisher's type is known, so the whole upstream chain runs specialized code; only the
  /// calls into the erased subscriber go through a closure.
  @usableFromInline
  let subscribeErased: (AnySubscriber<Output, Failure>) -> Void

  /// Creates a type-erasing publisher to wrap the provided publisher.
  @inlinable
  public init<P: Publisher>(_ publisher: P) where P.Output == Output, P.Failure == Failure {
    if let erased = publisher as? AnyPublisher<Output, Failure> {
      self = erased
    } else {
      subscribeErased = { publisher.receive(subscriber: $0) }
    }
  }

  /// A textual representation of this instance.
  public var description: String { "AnyPublisher" }

  /// The description, as playgrounds show it.
  public var playgroundDescription: Any { description }

  /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
  ///
  /// The wrapped publisher sees the subscriber wrapped in an `AnySubscriber`, which forwards
  /// every call, the subscriber's `combineIdentifier` and its description.
  @inlinable @inline(__always)
  public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    subscribeErased(AnySubscriber(subscriber))
  }
}

// The wrapped publisher is immutable once erased, as the boxed publisher is.
extension AnyPublisher: @unchecked Sendable where Output: Sendable {}

extension Publisher {
  /// Wraps this publisher with a type eraser.
  ///
  /// ```swift
  /// let erased: AnyPublisher<Int, Never> = Just(1).eraseToAnyPublisher()
  /// ```
  ///
  /// Conduit compiles a pipeline into code specialized for its types, and the compiler stops
  /// specializing once the types of a pipeline's subscribers nest about 50 levels deep: from
  /// around 30 chained operators (fewer with nested `combineLatest`, `zip` or `flatMap`), each
  /// value then runs through generic code that looks up type metadata at every call, which is
  /// much slower. Erasing part of a long pipeline starts the nesting afresh above the eraser, for
  /// the cost of one indirect call per value.
  @inlinable
  public func eraseToAnyPublisher() -> AnyPublisher<Output, Failure> {
    AnyPublisher(self)
  }
}

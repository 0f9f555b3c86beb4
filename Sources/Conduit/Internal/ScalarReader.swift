/// Reads the outcome of inner publishers of type `Inner` when that type is a `ScalarPublisher`.
///
/// Decided once, when an operator's subscription is created: a dynamic cast per inner publisher
/// would cost more than the subscription it saves.
@usableFromInline
struct ScalarReader<Inner: Publisher> {
  /// `nil` when `Inner` is not a scalar publisher and must be subscribed to.
  @usableFromInline
  let read: ((Inner) -> ScalarOutcome<Inner.Output, Inner.Failure>)?

  @inlinable
  init() {
    if let scalarType = Inner.self as? any ScalarPublisher.Type {
      read = ScalarReader.reader(for: scalarType)
    } else {
      read = nil
    }
  }

  /// `Scalar` is `Inner` itself, which the type system cannot see through the cast.
  @inlinable
  static func reader<Scalar: ScalarPublisher>(
    for _: Scalar.Type
  ) -> (Inner) -> ScalarOutcome<Inner.Output, Inner.Failure> {
    { inner in
      let outcome = unsafeBitCast(inner, to: Scalar.self).scalarOutcome
      return unsafeBitCast(outcome, to: ScalarOutcome<Inner.Output, Inner.Failure>.self)
    }
  }
}

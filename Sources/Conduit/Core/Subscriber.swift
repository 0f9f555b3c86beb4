/// A protocol that declares a type that can receive input from a publisher.
///
/// A subscriber receives exactly one subscription, then values up to the demand it requested,
/// then at most one completion.
///
/// ```swift
/// final class PrintTwo: Subscriber {
///     func receive(subscription: any Subscription) { subscription.request(.max(2)) }
///     func receive(_ input: Int) -> Subscribers.Demand { print(input); return .none }
///     func receive(completion: Subscribers.Completion<Never>) { print(completion) }
/// }
/// ```
public protocol Subscriber<Input, Failure>: CustomCombineIdentifierConvertible {
  /// The kind of values this subscriber receives.
  associatedtype Input

  /// The kind of errors this subscriber might receive. Use `Never` if it cannot receive errors.
  associatedtype Failure: Error

  /// Tells the subscriber that it has successfully subscribed to the publisher and may request
  /// items. Called exactly once, before anything else.
  func receive(subscription: any Subscription)

  /// Tells the subscriber that the publisher has produced an element.
  /// - Returns: The additional number of elements the subscriber expects to receive.
  func receive(_ input: Input) -> Subscribers.Demand

  /// Tells the subscriber that the publisher has completed publishing, normally or with an error.
  func receive(completion: Subscribers.Completion<Failure>)
}

extension Subscriber where Input == Void {
  /// Tells the subscriber that a publisher of void elements is ready to receive further requests.
  ///
  /// ```swift
  /// let demand = subscriber.receive()
  /// ```
  public func receive() -> Subscribers.Demand {
    receive(())
  }
}

import Conduit

/// A publisher that keeps the subscriber it is given, as it is, and sends it nothing: for the
/// reflection tests of the subscribers flatMap and switchToLatest give their inner publishers.
final class SubscriberKeeper<Output, Failure: Error>: Publisher, @unchecked Sendable {
  var subscriber: Any?

  func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    self.subscriber = subscriber
  }
}

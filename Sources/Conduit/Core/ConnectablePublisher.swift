/// A publisher that provides an explicit means of connecting and canceling publication.
///
/// Subscribers attach first; values flow only once ``connect()`` is called.
///
/// ```swift
/// let connectable = somePublisher.makeConnectable()
/// let a = connectable.sink { print("a", $0) }
/// let connection = connectable.connect()
/// ```
public protocol ConnectablePublisher<Output, Failure>: Publisher {
  /// Connects to the publisher, allowing it to produce elements, and returns an instance with
  /// which to cancel publishing.
  func connect() -> any Cancellable
}

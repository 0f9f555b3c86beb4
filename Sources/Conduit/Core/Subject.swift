/// A publisher that exposes a method for outside callers to publish elements.
///
/// ```swift
/// let subject = PassthroughSubject<String, Never>()
/// subject.send("hello")
/// subject.send(completion: .finished)
/// ```
public protocol Subject<Output, Failure>: AnyObject, Publisher {
  /// Sends a value to the subscriber.
  func send(_ value: Output)

  /// Sends a completion signal to the subscriber.
  func send(completion: Subscribers.Completion<Failure>)

  /// Sends a subscription to the subscriber, so a subject can subscribe to an upstream
  /// publisher. Subjects request unlimited demand from such a subscription.
  func send(subscription: any Subscription)
}

extension Subject where Output == Void {
  /// Sends a void value to the subscriber.
  ///
  /// ```swift
  /// let ticks = PassthroughSubject<Void, Never>()
  /// ticks.send()
  /// ```
  public func send() {
    send(())
  }
}

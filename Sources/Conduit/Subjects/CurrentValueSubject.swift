/// A subject that wraps a single value and publishes a new element whenever the value changes.
///
/// A new subscriber receives the current value with its first demand, then every later value
/// sent while it has demand. A value sent while it has none is dropped, but, as in Combine, the
/// subscriber then receives the current value with its next demand. After a completion, `send`
/// does nothing; assigning ``value`` still changes it but sends nothing.
///
/// ```swift
/// let temperature = CurrentValueSubject<Double, Never>(20)
/// let cancellable = temperature.sink { print($0) }   // 20.0
/// temperature.value = 21                              // 21.0
/// ```
public final class CurrentValueSubject<Output, Failure: Error>: Subject {
  // Thread-safe by itself.
  @usableFromInline
  let core: CurrentValueSubjectCore<Output, Failure>

  /// The value wrapped by this subject, published as a new element whenever it changes.
  public var value: Output {
    get {
      core.state.withLock { _ in core.value }
    }
    @inlinable
    set {
      core.setValue(newValue)
    }
  }

  /// Creates a current value subject with the given initial value.
  public init(_ value: Output) {
    core = CurrentValueSubjectCore(value: value)
  }

  deinit {
    core.cancelUpstreams()
  }

  /// Sends a value to the subscribers.
  @inlinable
  public func send(_ input: Output) {
    core.send(input)
  }

  /// Sends a completion signal to the subscribers.
  @inlinable
  public func send(completion: Subscribers.Completion<Failure>) {
    core.send(completion: completion)
  }

  /// Receives an upstream subscription and requests unlimited demand from it.
  public func send(subscription: any Subscription) {
    core.send(subscription: subscription)
  }

  /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
  @inlinable @inline(__always)
  public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    core.receive(subscriber: subscriber)
  }
}

// Sendable only when its value is: the subject keeps the value, and any thread that reads `value`
// or subscribes gets it, wherever it was set. The core is thread-safe by itself.
extension CurrentValueSubject: Sendable where Output: Sendable {}

extension CurrentValueSubject: UpstreamForgetting {
  @usableFromInline
  func forgetUpstream(_ identifier: CombineIdentifier) {
    core.forgetUpstream(identifier)
  }
}

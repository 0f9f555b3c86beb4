extension Publishers {
  /// A publisher that ignores all upstream elements, but passes along the upstream publisher's
  /// completion state (finished or failed).
  ///
  /// As in Combine, the subscriber gets upstream's own subscription, so what it requests and
  /// cancels goes straight to upstream; once the subscriber has it, upstream is also asked for
  /// `.unlimited`. The completion passes on at once: no demand is needed, since no value is ever
  /// sent.
  ///
  /// ```swift
  /// let cancellable = [1, 2, 3].publisher
  ///     .ignoreOutput()
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { _ in })   // finished
  /// ```
  public struct IgnoreOutput<Upstream: Publisher>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Never
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// Creates a publisher that ignores all upstream elements, but passes along the upstream
    /// publisher's completion state.
    public init(upstream: Upstream) {
      self.upstream = upstream
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Never, S.Failure == Failure {
      upstream.subscribe(Inner(downstream: subscriber))
    }
  }
}

extension Publishers.IgnoreOutput {
  typealias Inner<Downstream: Subscriber> = IgnoreOutputInner<Link<Upstream.Output, Failure, Downstream>>
  where Downstream.Input == Never, Downstream.Failure == Failure
}

/// Forwards the upstream subscription untouched, asks it for everything, drops each value and
/// passes the completion on: like `map`, it keeps no state, takes no lock and allocates nothing
/// of its own. Being a struct, it lives inside the upstream's subscription.
struct IgnoreOutputInner<Types: OperatorLink>: Subscriber, CustomStringConvertible, CustomReflectable,
  CustomPlaygroundDisplayConvertible
where Types.Downstream.Input == Never, Types.Downstream.Failure == Types.Failure {
  typealias Input = Types.Input
  typealias Failure = Types.Failure
  typealias Downstream = Types.Downstream

  let downstream: Downstream
  let combineIdentifier = CombineIdentifier()

  init(downstream: Downstream) {
    self.downstream = downstream
  }

  var description: String { "IgnoreOutput" }

  var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }

  var playgroundDescription: Any { description }

  /// As in Combine, every subscription, a second one too, goes downstream and is asked for
  /// everything; the subscriber's own requests reach upstream before that one.
  func receive(subscription: any Subscription) {
    downstream.receive(subscription: subscription)
    subscription.request(.unlimited)
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    .none
  }

  /// Passes on every completion, as Combine does, even one that arrives before the subscription.
  func receive(completion: Subscribers.Completion<Failure>) {
    downstream.receive(completion: completion)
  }
}

extension Publishers.IgnoreOutput: Equatable where Upstream: Equatable {}

extension Publisher {
  /// Ignores all upstream elements, but passes along the upstream publisher's completion
  /// state (finished or failed).
  ///
  /// ```swift
  /// let cancellable = upload.publisher
  ///     .ignoreOutput()
  ///     .sink(receiveCompletion: { print("done: \($0)") }, receiveValue: { _ in })
  /// ```
  public func ignoreOutput() -> Publishers.IgnoreOutput<Self> {
    Publishers.IgnoreOutput(upstream: self)
  }
}

extension IgnoreOutputInner: CensusTransparent {
  /// What is created on this subscriber's behalf joins the census scope of its downstream.
  @usableFromInline
  var censusWrapped: Any? { downstream }
}

extension Publishers {
  /// A publisher that raises a fatal error upon receiving any failure, and otherwise
  /// republishes all received input.
  ///
  /// ```swift
  /// let cancellable = subject
  ///     .assertNoFailure("settings stream")
  ///     .sink { print($0) }
  /// ```
  public struct AssertNoFailure<Upstream: Publisher>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = Never

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// The string used at the beginning of the fatal error message.
    public let prefix: String

    /// The filename used in the error message.
    public let file: StaticString

    /// The line number used in the error message.
    public let line: UInt

    /// Creates a publisher that stops the process with a fatal error when its upstream fails.
    public init(upstream: Upstream, prefix: String, file: StaticString, line: UInt) {
      self.upstream = upstream
      self.prefix = prefix
      self.file = file
      self.line = line
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
      upstream.subscribe(Inner(downstream: subscriber, prefix: prefix, file: file, line: line))
    }
  }
}

extension Publishers.AssertNoFailure {
  typealias Inner<Downstream: Subscriber> = AssertNoFailureInner<Link<Upstream.Output, Upstream.Failure, Downstream>>
  where Downstream.Input == Upstream.Output, Downstream.Failure == Never
}

/// The fatal error message for `failure`: `"<prefix>: <failure>"`, or the failure alone when
/// the prefix is empty, as in Combine.
func assertNoFailureMessage(prefix: String, failure: some Error) -> String {
  prefix.isEmpty ? "\(failure)" : "\(prefix): \(failure)"
}

/// Forwards the upstream subscription and every value untouched; a failure stops the
/// process. No state, no lock, no allocation.
///
/// Generic over one `OperatorLink`, so that a pipeline repeating the operator stays specialized
/// (see `OperatorLink`).
struct AssertNoFailureInner<Types: OperatorLink>: Subscriber, CustomStringConvertible, CustomReflectable,
  CustomPlaygroundDisplayConvertible
where Types.Downstream.Input == Types.Input, Types.Downstream.Failure == Never {
  typealias Input = Types.Input
  typealias Failure = Types.Failure
  typealias Downstream = Types.Downstream

  let downstream: Downstream
  let prefix: String
  let file: StaticString
  let line: UInt
  let combineIdentifier = CombineIdentifier()

  init(downstream: Downstream, prefix: String, file: StaticString, line: UInt) {
    self.downstream = downstream
    self.prefix = prefix
    self.file = file
    self.line = line
  }

  var description: String { "AssertNoFailure" }
  var playgroundDescription: Any { description }
  var customMirror: Mirror { Mirror(self, children: ["file": file, "line": line, "prefix": prefix]) }

  func receive(subscription: any Subscription) {
    downstream.receive(subscription: subscription)
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    downstream.receive(input)
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    switch completion {
    case .finished:
      downstream.receive(completion: .finished)
    case .failure(let failure):
      fatalError(assertNoFailureMessage(prefix: prefix, failure: failure), file: file, line: line)
    }
  }
}

extension Publisher {
  /// Raises a fatal error when its upstream publisher fails, and otherwise republishes all
  /// received input.
  ///
  /// Like `fatalError(_:)`, it stops the process in debug and release builds alike. The message
  /// starts with `prefix`, and names the failure and the file and line of the call.
  ///
  /// ```swift
  /// let cancellable = CurrentValueSubject<String, any Error>("initial")
  ///     .assertNoFailure("config")
  ///     .sink { print($0) }
  /// ```
  public func assertNoFailure(
    _ prefix: String = "", file: StaticString = #file, line: UInt = #line
  ) -> Publishers.AssertNoFailure<Self> {
    Publishers.AssertNoFailure(upstream: self, prefix: prefix, file: file, line: line)
  }
}

extension AssertNoFailureInner: CensusTransparent {
  /// What is created on this subscriber's behalf joins the census scope of its downstream.
  @usableFromInline
  var censusWrapped: Any? { downstream }
}

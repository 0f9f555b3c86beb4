#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Android)
  import Android
#endif

extension Publishers {
  /// A publisher that raises a debugger signal when a provided closure needs to stop the
  /// process in the debugger.
  ///
  /// When any of the closures returns `true`, this publisher raises `SIGTRAP`; otherwise it
  /// passes values and completions through untouched.
  ///
  /// ```swift
  /// let cancellable = subject
  ///     .breakpoint(receiveOutput: { $0 == "DEBUGGER" })
  ///     .sink { print($0) }
  /// ```
  public struct Breakpoint<Upstream: Publisher>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// A closure that executes when the publisher receives a subscription, and can raise a
    /// debugger signal by returning `true`.
    public let receiveSubscription: ((any Subscription) -> Bool)?

    /// A closure that executes when the publisher receives output from the upstream publisher,
    /// and can raise a debugger signal by returning `true`.
    public let receiveOutput: ((Upstream.Output) -> Bool)?

    /// A closure that executes when the publisher receives completion, and can raise a
    /// debugger signal by returning `true`.
    public let receiveCompletion: ((Subscribers.Completion<Upstream.Failure>) -> Bool)?

    /// Creates a breakpoint publisher with the provided upstream publisher and
    /// breakpoint-raising closures.
    public init(
      upstream: Upstream,
      receiveSubscription: ((any Subscription) -> Bool)? = nil,
      receiveOutput: ((Upstream.Output) -> Bool)? = nil,
      receiveCompletion: ((Subscribers.Completion<Upstream.Failure>) -> Bool)? = nil
    ) {
      self.upstream = upstream
      self.receiveSubscription = receiveSubscription
      self.receiveOutput = receiveOutput
      self.receiveCompletion = receiveCompletion
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(
        Inner(
          downstream: subscriber, receiveSubscription: receiveSubscription, receiveOutput: receiveOutput,
          receiveCompletion: receiveCompletion))
    }
  }
}

extension Publishers.Breakpoint {
  typealias Inner<Downstream: Subscriber> = BreakpointInner<Downstream>
  where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure
}

/// Forwards the upstream subscription untouched and asks the closures at each event. Being a
/// struct, it lives inside the upstream's subscription and goes with it.
///
/// Generic over its downstream alone, as an operator that passes on the values and errors it
/// receives can be: one level of nesting per use rather than two (see `OperatorLink`).
struct BreakpointInner<Downstream: Subscriber>: Subscriber, CustomStringConvertible, CustomReflectable,
  CustomPlaygroundDisplayConvertible
{
  typealias Input = Downstream.Input
  typealias Failure = Downstream.Failure

  let downstream: Downstream
  let receiveSubscription: ((any Subscription) -> Bool)?
  let receiveOutput: ((Input) -> Bool)?
  let receiveCompletion: ((Subscribers.Completion<Failure>) -> Bool)?
  let combineIdentifier = CombineIdentifier()

  init(
    downstream: Downstream,
    receiveSubscription: ((any Subscription) -> Bool)?,
    receiveOutput: ((Input) -> Bool)?,
    receiveCompletion: ((Subscribers.Completion<Failure>) -> Bool)?
  ) {
    self.downstream = downstream
    self.receiveSubscription = receiveSubscription
    self.receiveOutput = receiveOutput
    self.receiveCompletion = receiveCompletion
  }

  var description: String { "Breakpoint" }
  var playgroundDescription: Any { description }
  var customMirror: Mirror { Mirror(self, children: [:]) }

  func receive(subscription: any Subscription) {
    if receiveSubscription?(subscription) == true { stopInDebugger() }
    downstream.receive(subscription: subscription)
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    if receiveOutput?(input) == true { stopInDebugger() }
    return downstream.receive(input)
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    if receiveCompletion?(completion) == true { stopInDebugger() }
    downstream.receive(completion: completion)
  }
}

/// Raises `SIGTRAP`: a debugger attached to the process stops here; without one, the process
/// ends. Where the platform has no such signal, the process stops with a fatal error.
func stopInDebugger() {
  #if os(Windows) || os(WASI)
    fatalError("Publishers.Breakpoint: a breakpoint closure returned true")
  #else
    _ = raise(SIGTRAP)
  #endif
}

extension Publisher {
  /// Raises a debugger signal when a provided closure needs to stop the process in the
  /// debugger.
  ///
  /// When any of the closures returns `true`, the operator raises `SIGTRAP`, which stops the
  /// process in an attached debugger. Otherwise values and completions pass through as they
  /// are.
  ///
  /// ```swift
  /// let cancellable = subject
  ///     .breakpoint(receiveOutput: { $0 == "DEBUGGER" })
  ///     .sink { print($0) }
  /// subject.send("DEBUGGER")   // stops in the debugger
  /// ```
  ///
  /// - Parameters:
  ///   - receiveSubscription: Asked when the publisher receives a subscription; return `true`
  ///     to stop.
  ///   - receiveOutput: Asked for each value from upstream; return `true` to stop.
  ///   - receiveCompletion: Asked with the completion; return `true` to stop.
  public func breakpoint(
    receiveSubscription: ((any Subscription) -> Bool)? = nil,
    receiveOutput: ((Output) -> Bool)? = nil,
    receiveCompletion: ((Subscribers.Completion<Failure>) -> Bool)? = nil
  ) -> Publishers.Breakpoint<Self> {
    Publishers.Breakpoint(
      upstream: self, receiveSubscription: receiveSubscription, receiveOutput: receiveOutput,
      receiveCompletion: receiveCompletion)
  }

  /// Raises a debugger signal upon receiving a failure.
  ///
  /// ```swift
  /// let cancellable = requests
  ///     .breakpointOnError()   // stops in the debugger if `requests` fails
  ///     .sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
  /// ```
  public func breakpointOnError() -> Publishers.Breakpoint<Self> {
    breakpoint(receiveCompletion: { completion in
      if case .failure = completion { return true }
      return false
    })
  }
}

extension BreakpointInner: CensusTransparent {
  /// What is created on this subscriber's behalf joins the census scope of its downstream.
  @usableFromInline
  var censusWrapped: Any? { downstream }
}

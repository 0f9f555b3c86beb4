extension Publishers {
  /// A publisher that prints log messages for all publishing events, optionally prefixed with a
  /// given string.
  ///
  /// It logs the subscription, each request (`(synchronous)` marks demand returned from
  /// `receive(_:)`), each value, the completion and cancellation, one line each, in Combine's
  /// format.
  ///
  /// ```swift
  /// let cancellable = [1].publisher.print("numbers").sink { _ in }
  /// // numbers: receive subscription: (…)
  /// // numbers: request unlimited
  /// // numbers: receive value: (1)
  /// // numbers: receive finished
  /// ```
  public struct Print<Upstream: Publisher>: Publisher {
    /// The kind of values published by this publisher.
    public typealias Output = Upstream.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = Upstream.Failure

    /// A string with which to prefix all log messages.
    public let prefix: String

    /// The publisher from which this publisher receives elements.
    public let upstream: Upstream

    /// The stream the log messages are written to; standard output when `nil`.
    public let stream: (any TextOutputStream)?

    /// Creates a publisher that prints log messages for all publishing events.
    ///
    /// - Parameters:
    ///   - upstream: The publisher from which this publisher receives elements.
    ///   - prefix: A string with which to prefix all log messages.
    ///   - stream: The stream to write to; standard output when `nil`.
    public init(upstream: Upstream, prefix: String, to stream: (any TextOutputStream)? = nil) {
      self.upstream = upstream
      self.prefix = prefix
      self.stream = stream
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(Inner(downstream: subscriber, prefix: prefix, stream: stream))
    }
  }
}

extension Publishers.Print {
  private typealias Inner<Downstream: Subscriber> = PrintInner<Downstream>
  where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure
}

/// Stands between upstream and downstream as the subscription, so that it sees requests and
/// cancellation, and logs each event before passing it on.
///
/// Before the upstream's subscription arrives it behaves as Combine's does: a value or a
/// completion passes through to the downstream, a request or a cancel is only logged, and every
/// subscription that arrives is logged, a rejected second one too. Once the stream has completed
/// or been cancelled, nothing more is logged or passed on, and the stream is let go of.
///
/// Generic over its downstream alone, as an operator that passes on the values and errors it
/// receives can be: one level of nesting per use rather than two (see `OperatorLink`).
private final class PrintInner<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
  CustomReflectable, CustomPlaygroundDisplayConvertible, CensusScoped, Sendable
{
  typealias Input = Downstream.Input
  typealias Failure = Downstream.Failure

  private enum State {
    case awaitingSubscription(Downstream)
    case subscribed(Downstream, any Subscription)
    case terminal

    var downstream: Downstream? {
      switch self {
      case .awaitingSubscription(let downstream), .subscribed(let downstream, _): downstream
      case .terminal: nil
      }
    }
  }

  /// Lines waiting to be written, and the target while nobody is writing to it. Lines from
  /// different threads (values upstream, requests downstream) are queued, and whichever
  /// thread finds nobody writing takes the target out and writes them all: lines never
  /// interleave, and the stream is not called while a lock is held.
  private struct Printer {
    var target: PrintTarget?
    var pending: [String] = []
    var writing = false
    var closed = false
  }

  // Both guarded by their own locks.
  private let state: Locked<State>
  private let printer: Locked<Printer>
  private let prefix: String
  private let census: CensusToken

  var description: String { "Print" }
  var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }
  var playgroundDescription: Any { description }
  var censusScope: CensusScope? { census.scope }

  init(downstream: Downstream, prefix: String, stream: (any TextOutputStream)?) {
    census = CensusToken(PrintInner.self, inheritingFrom: downstream)
    state = Locked(.awaitingSubscription(downstream))
    printer = Locked(Printer(target: stream.map(PrintTarget.stream) ?? .standardOutput))
    self.prefix = prefix.isEmpty ? "" : prefix + ": "
  }

  func receive(subscription: any Subscription) {
    log("receive subscription: (\(subscription))")
    let downstream = state.withLock { state -> Downstream? in
      guard case .awaitingSubscription(let downstream) = state else { return nil }
      state = .subscribed(downstream, subscription)
      return downstream
    }
    guard let downstream else {
      subscription.cancel()
      return
    }
    downstream.receive(subscription: self)
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    guard let downstream = state.withLock({ $0.downstream }) else { return .none }
    log("receive value: (\(input))")
    let demand = downstream.receive(input)
    if demand > 0 { log(Self.describe(demand) + " (synchronous)") }
    return demand
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    // The subscriber and the subscription leave after the lock.
    guard let downstream = state.exchange(.terminal).downstream else { return }
    switch completion {
    case .finished: log("receive finished", closing: true)
    case .failure(let error): log("receive error: (\(error))", closing: true)
    }
    downstream.receive(completion: completion)
  }

  func request(_ demand: Subscribers.Demand) {
    // As in Combine, any demand, `.none` too, is logged and passed on; one made before the
    // subscription is only logged.
    let upstream = state.withLock { state -> (any Subscription)? in
      guard case .subscribed(_, let upstream) = state else { return nil }
      return upstream
    }
    log(Self.describe(demand))
    upstream?.request(demand)
  }

  func cancel() {
    // The subscriber leaves after the lock: its deinit may cancel this subscription.
    let ended = state.withLock { state -> State? in
      guard case .subscribed = state else { return nil }
      defer { state = .terminal }
      return state
    }
    guard case .subscribed(_, let upstream)? = ended else {
      // As in Combine, a cancel before the subscription is only logged.
      log("receive cancel")
      return
    }
    log("receive cancel", closing: true)
    upstream.cancel()
  }

  private static func describe(_ demand: Subscribers.Demand) -> String {
    guard let count = demand.max else { return "request unlimited" }
    return "request max: (\(count))"
  }

  /// Writes one line; `closing` marks the last one, after which the target is released.
  private func log(_ line: String, closing: Bool = false) {
    let line = prefix + line
    let taken = printer.withLock { printer -> (PrintTarget, [String])? in
      guard !printer.closed else { return nil }
      printer.pending.append(line)
      if closing { printer.closed = true }
      guard !printer.writing, let target = printer.target else { return nil }
      printer.writing = true
      printer.target = nil
      defer { printer.pending = [] }
      return (target, printer.pending)
    }
    guard var (target, lines) = taken else { return }
    while !lines.isEmpty {
      for line in lines { target.write(line) }
      lines = printer.withLock { printer -> [String] in
        if printer.pending.isEmpty {
          printer.writing = false
          if !printer.closed { printer.target = target }
        }
        defer { printer.pending = [] }
        return printer.pending
      }
    }
  }
}

/// Where `print` writes its lines: as `Swift.print` writes them, so that a stream sees the writes
/// Combine makes, and standard output honours the playground's print hook.
private enum PrintTarget {
  case standardOutput
  case stream(UserStream)

  static func stream(_ stream: any TextOutputStream) -> PrintTarget { .stream(UserStream(stream: stream)) }

  mutating func write(_ line: String) {
    switch self {
    case .standardOutput:
      Swift.print(line)
    case .stream(var stream):
      Swift.print(line, to: &stream)
      self = .stream(stream)
    }
  }
}

/// The user's stream, in a concrete type that `Swift.print` can write to.
private struct UserStream: TextOutputStream {
  var stream: any TextOutputStream

  mutating func write(_ string: String) {
    stream.write(string)
  }
}

extension Publisher {
  /// Prints log messages for all publishing events.
  ///
  /// Each line starts with `prefix` and a colon when `prefix` is not empty: `receive
  /// subscription: (…)`, `request max: (n)` or `request unlimited` (marked `(synchronous)`
  /// when it is demand returned from `receive(_:)`), `receive value: (…)`, `receive finished`,
  /// `receive error: (…)`, `receive cancel`.
  ///
  /// ```swift
  /// let cancellable = [1, 2].publisher
  ///     .print("numbers")
  ///     .sink { _ in }
  /// // numbers: receive subscription: (…)
  /// // numbers: request unlimited
  /// // numbers: receive value: (1)
  /// // numbers: receive value: (2)
  /// // numbers: receive finished
  /// ```
  ///
  /// - Parameters:
  ///   - prefix: A string with which to prefix all log messages; by default, none.
  ///   - stream: The stream to write to; by default, standard output.
  public func print(_ prefix: String = "", to stream: (any TextOutputStream)? = nil) -> Publishers.Print<Self> {
    Publishers.Print(upstream: self, prefix: prefix, to: stream)
  }
}

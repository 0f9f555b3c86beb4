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
      upstream.subscribe(Inner(downstream: subscriber, prefix: prefix, stream: stream ?? StandardOutput()))
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
/// Generic over its downstream alone, as an operator that passes on the values and errors it
/// receives can be: one level of nesting per use rather than two (see `OperatorLink`).
private final class PrintInner<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
  CensusScoped, @unchecked Sendable
{
  typealias Input = Downstream.Input
  typealias Failure = Downstream.Failure

  private enum State {
    case awaitingSubscription(Downstream)
    case subscribed(Downstream, any Subscription)
    case terminal
  }

  /// Lines waiting to be written, and the stream while nobody is writing to it. Lines from
  /// different threads (values upstream, requests downstream) are queued, and whichever
  /// thread finds nobody writing takes the stream out and writes them all: lines never
  /// interleave, and the stream is not called while a lock is held.
  private struct Printer {
    var stream: (any TextOutputStream)?
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
  var censusScope: CensusScope? { census.scope }

  init(downstream: Downstream, prefix: String, stream: any TextOutputStream) {
    census = CensusToken(PrintInner.self, inheritingFrom: downstream)
    state = Locked(.awaitingSubscription(downstream))
    printer = Locked(Printer(stream: stream))
    self.prefix = prefix.isEmpty ? "" : prefix + ": "
  }

  func receive(subscription: any Subscription) {
    let downstream = state.withLock { state -> Downstream? in
      guard case .awaitingSubscription(let downstream) = state else { return nil }
      state = .subscribed(downstream, subscription)
      return downstream
    }
    guard let downstream else {
      subscription.cancel()
      return
    }
    log("receive subscription: (\(subscription))")
    downstream.receive(subscription: self)
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    let downstream = state.withLock { state -> Downstream? in
      guard case .subscribed(let downstream, _) = state else { return nil }
      return downstream
    }
    guard let downstream else { return .none }
    log("receive value: (\(input))")
    let demand = downstream.receive(input)
    if demand > 0 { log(Self.describe(demand) + " (synchronous)") }
    return demand
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    let downstream = state.withLock { state -> Downstream? in
      defer { state = .terminal }
      guard case .subscribed(let downstream, _) = state else { return nil }
      return downstream
    }
    guard let downstream else { return }
    switch completion {
    case .finished: log("receive finished", closing: true)
    case .failure(let error): log("receive error: (\(error))", closing: true)
    }
    downstream.receive(completion: completion)
  }

  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    let upstream = state.withLock { state -> (any Subscription)? in
      guard case .subscribed(_, let upstream) = state else { return nil }
      return upstream
    }
    guard let upstream else { return }
    log(Self.describe(demand))
    upstream.request(demand)
  }

  func cancel() {
    // The subscriber leaves after the lock: its deinit may cancel this subscription.
    let ended = state.withLock { state -> State? in
      guard case .subscribed = state else { return nil }
      defer { state = .terminal }
      return state
    }
    guard case .subscribed(_, let upstream)? = ended else { return }
    log("receive cancel", closing: true)
    upstream.cancel()
  }

  private static func describe(_ demand: Subscribers.Demand) -> String {
    guard let count = demand.max else { return "request unlimited" }
    return "request max: (\(count))"
  }

  /// Writes one line; `closing` marks the last one, after which the stream is released.
  private func log(_ message: String, closing: Bool = false) {
    let line = prefix + message + "\n"
    let taken = printer.withLock { printer -> (any TextOutputStream, [String])? in
      guard !printer.closed else { return nil }
      printer.pending.append(line)
      if closing { printer.closed = true }
      guard !printer.writing, let stream = printer.stream else { return nil }
      printer.writing = true
      printer.stream = nil
      defer { printer.pending = [] }
      return (stream, printer.pending)
    }
    guard var (stream, lines) = taken else { return }
    while !lines.isEmpty {
      for line in lines { stream.write(line) }
      lines = printer.withLock { printer -> [String] in
        if printer.pending.isEmpty {
          printer.writing = false
          if !printer.closed { printer.stream = stream }
        }
        defer { printer.pending = [] }
        return printer.pending
      }
    }
  }
}

/// Writes to the process's standard output.
private struct StandardOutput: TextOutputStream {
  mutating func write(_ string: String) {
    Swift.print(string, terminator: "")
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

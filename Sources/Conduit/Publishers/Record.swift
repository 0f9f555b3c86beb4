/// A publisher that allows for recording a series of inputs and a completion, for later playback
/// to each subscriber.
///
/// ```swift
/// let record = Record<Int, Never> { recording in
///     recording.receive(1)
///     recording.receive(2)
///     recording.receive(completion: .finished)
/// }
/// let cancellable = record.sink { print($0) }   // 1, 2
/// ```
public struct Record<Output, Failure: Error>: Publisher {
  /// The recorded output and completion.
  public let recording: Recording

  /// Creates a publisher to interactively record a series of outputs and a completion.
  public init(record: (inout Recording) -> Void) {
    var recording = Recording()
    record(&recording)
    self.recording = recording
  }

  /// Creates a record publisher from an existing recording.
  public init(recording: Recording) {
    self.recording = recording
  }

  /// Creates a record publisher to publish the provided records and completion.
  public init(output: [Output], completion: Subscribers.Completion<Failure>) {
    self.recording = Recording(output: output, completion: completion)
  }

  /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
  @inlinable @inline(__always)
  public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    SequenceSubscription.start(
      recording.output, then: recording.completion, downstream: subscriber, description: "Record")
  }

  /// A recorded sequence of outputs, followed by a completion value.
  ///
  /// ```swift
  /// var recording = Record<Int, Never>.Recording()
  /// recording.receive(1)
  /// recording.receive(completion: .finished)
  /// ```
  public struct Recording {
    /// The kind of values this subscriber receives.
    public typealias Input = Output

    /// The output which will be sent to a subscriber.
    public private(set) var output: [Output]

    /// The completion which will be sent to a subscriber. `.finished` until one is recorded.
    public var completion: Subscribers.Completion<Failure> {
      recordedCompletion ?? .finished
    }

    private var recordedCompletion: Subscribers.Completion<Failure>?

    /// Sets up a recording in a state ready to receive output.
    public init() {
      output = []
      recordedCompletion = nil
    }

    /// Sets up a complete recording with the specified output and completion.
    public init(output: [Output], completion: Subscribers.Completion<Failure> = .finished) {
      self.output = output
      self.recordedCompletion = completion
    }

    /// Adds an output to the recording sequence.
    ///
    /// - Precondition: No completion has been recorded yet.
    public mutating func receive(_ input: Output) {
      precondition(
        recordedCompletion == nil,
        "Record.Recording.receive(_:): a value was recorded after the completion; record values first")
      output.append(input)
    }

    /// Adds a completion event to the recording sequence.
    ///
    /// - Precondition: No completion has been recorded yet.
    public mutating func receive(completion: Subscribers.Completion<Failure>) {
      precondition(
        recordedCompletion == nil,
        "Record.Recording.receive(completion:): a second completion was recorded; a recording ends once")
      recordedCompletion = completion
    }
  }
}

extension Record.Recording: Sendable where Output: Sendable {}

extension Record: Sendable where Output: Sendable {}

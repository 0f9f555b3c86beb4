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
      recording.output, then: recording.completion, downstream: subscriber, kind: .record)
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

extension Record.Recording: Codable where Output: Codable, Failure: Codable {
  /// Decodes a recording written by `encode(to:)`: its outputs and its completion.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: RecordCodingKey.self)
    self.init(
      output: try container.decode([Output].self, forKey: .output),
      completion: try container.decode(Subscribers.Completion<Failure>.self, forKey: .completion))
  }

  /// Encodes the outputs and the completion, in Combine's format.
  ///
  /// ```swift
  /// let recording = Record<Int, Never>.Recording(output: [1, 2], completion: .finished)
  /// let data = try JSONEncoder().encode(recording)
  /// // {"completion":{"success":true},"output":[1,2]}
  /// ```
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: RecordCodingKey.self)
    try container.encode(output, forKey: .output)
    try container.encode(completion, forKey: .completion)
  }

  /// Encodes the recording into `encoder`; the same as `encode(to:)`, under the other name
  /// Combine gives it.
  public func encode(into encoder: any Encoder) throws {
    try encode(to: encoder)
  }
}

extension Record: Codable where Output: Codable, Failure: Codable {
  /// Decodes a record written by `encode(to:)`.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: RecordCodingKey.self)
    self.init(recording: try container.decode(Recording.self, forKey: .recording))
  }

  /// Encodes the record as its recording, in Combine's format.
  ///
  /// ```swift
  /// let record = Record<Int, Never>(output: [1, 2], completion: .finished)
  /// let data = try JSONEncoder().encode(record)
  /// // {"recording":{"completion":{"success":true},"output":[1,2]}}
  /// ```
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: RecordCodingKey.self)
    try container.encode(recording, forKey: .recording)
  }
}

/// The keys of an encoded `Record` and `Record.Recording`, as Combine names them.
private enum RecordCodingKey: String, CodingKey {
  case recording
  case output
  case completion
}

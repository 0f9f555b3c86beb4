import Conduit
import ConduitTesting
import Foundation
import Testing

private enum RecordTestError: Error, Equatable {
  case failed
}

@Suite(.leakChecked)
struct RecordTests {
  // MARK: Initializers

  // As in Combine (OpenCombine's RecordTests.swift `testReflection`, `testLifecycle`): by the
  // recorded output while it publishes, "Cancelled Events" once it has ended.
  @Test func subscriptionIsDescribedByItsRecordingThenAsCancelledEvents() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    Record<Int, Never>(output: [1, 2], completion: .finished).subscribe(subscriber)
    let subscription = subscriber.subscription
    #expect((subscription as? any CustomStringConvertible)?.description == "[1, 2]")
    #expect((subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "[1, 2]")
    subscriber.request(.max(1))
    #expect((subscription as? any CustomStringConvertible)?.description == "[1, 2]")
    subscriber.request(.max(1))
    #expect(subscriber.completion == .finished)
    #expect((subscription as? any CustomStringConvertible)?.description == "Cancelled Events")
  }

  @Test func cancelledSubscriptionIsDescribedAsCancelledEvents() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    Record<Int, Never>(output: [1, 2], completion: .finished).subscribe(subscriber)
    let subscription = subscriber.subscription
    subscriber.cancel()
    #expect((subscription as? any CustomStringConvertible)?.description == "Cancelled Events")
  }

  @Test func subscriptionReflectsItsOutputAndCompletion() throws {
    let subscriber = TestSubscriber<Int, RecordTestError>(initialDemand: .none)
    Record<Int, RecordTestError>(output: [1, 2], completion: .failure(.failed)).subscribe(subscriber)
    let subscription = try #require(subscriber.subscription.flatMap { $0 as? any CustomReflectable })
    let children = subscription.customMirror.children.map { ($0.label, String(describing: $0.value)) }
    #expect(children.map(\.0) == ["sequence", "completion"])
    #expect(children[0].1 == "[1, 2]")
    #expect(children[1].1.contains("failure"))
    subscriber.request(.unlimited)
    let ended = subscription.customMirror.children.map { String(describing: $0.value) }
    #expect(ended[0] == "[]")
    #expect(ended[1].contains("failure"))
  }

  // As in Combine (OpenCombine's RecordTests.swift `testRecordNoInitialDemand`, `testRecursion`):
  // a request for nothing changes nothing.
  @Test func aRequestForNothingChangesNothing() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    Record<Int, Never>(output: [1, 2], completion: .finished).subscribe(subscriber)
    subscriber.subscription?.request(.none)
    #expect(subscriber.events == [.subscription])
    subscriber.request(.max(1))
    subscriber.subscription?.request(.none)
    #expect(subscriber.events == [.subscription, .value(1)])
    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .value(1), .value(2), .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func recordsInteractively() {
    let record = Record<Int, RecordTestError> { recording in
      recording.receive(1)
      recording.receive(2)
      recording.receive(completion: .failure(.failed))
    }
    #expect(record.recording.output == [1, 2])
    #expect(record.recording.completion == .failure(.failed))
  }

  @Test func interactiveRecordingWithoutCompletionFinishes() {
    let record = Record<Int, Never> { recording in
      recording.receive(1)
    }
    #expect(record.recording.completion == .finished)
    let subscriber = TestSubscriber<Int, Never>()
    record.subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .value(1), .completion(.finished)])
  }

  @Test func initFromARecording() {
    var recording = Record<String, RecordTestError>.Recording()
    #expect(recording.output.isEmpty)
    #expect(recording.completion == .finished)
    recording.receive("a")
    recording.receive(completion: .failure(.failed))
    let record = Record(recording: recording)
    let subscriber = TestSubscriber<String, RecordTestError>()
    record.subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .value("a"), .completion(.failure(.failed))])
  }

  @Test func initFromOutputAndCompletion() {
    let record = Record<Int, RecordTestError>(output: [3, 4], completion: .finished)
    #expect(record.recording.output == [3, 4])
    #expect(record.recording.completion == .finished)
    let subscriber = TestSubscriber<Int, RecordTestError>()
    record.subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .value(3), .value(4), .completion(.finished)])
  }

  @Test func completeRecordingDefaultsToFinished() {
    let recording = Record<Int, RecordTestError>.Recording(output: [1])
    #expect(recording.completion == .finished)
    #expect(recording.output == [1])
  }

  // MARK: Playback

  @Test func playsBackOnDemand() {
    let record = Record<Int, Never>(output: [1, 2, 3], completion: .finished)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    record.subscribe(subscriber)
    #expect(subscriber.values == [1])
    subscriber.request(.max(1))
    #expect(subscriber.values == [1, 2])
    #expect(subscriber.completion == nil)
    subscriber.request(.max(1))
    #expect(subscriber.values == [1, 2, 3])
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func failsRightAfterTheLastValue() {
    let record = Record<Int, RecordTestError>(output: [1, 2], completion: .failure(.failed))
    let subscriber = TestSubscriber<Int, RecordTestError>(initialDemand: .max(2))
    record.subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .value(1), .value(2), .completion(.failure(.failed))])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func failsWithoutDemandWhenNothingWasRecorded() {
    let record = Record<Int, RecordTestError>(output: [], completion: .failure(.failed))
    let subscriber = TestSubscriber<Int, RecordTestError>(initialDemand: .none)
    record.subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .completion(.failure(.failed))])
  }

  @Test func failureWaitsUntilTheValuesWereDemanded() {
    let record = Record<Int, RecordTestError>(output: [1, 2], completion: .failure(.failed))
    let subscriber = TestSubscriber<Int, RecordTestError>(initialDemand: .max(1))
    record.subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .value(1)])
    subscriber.request(.max(1))
    #expect(subscriber.events == [.subscription, .value(1), .value(2), .completion(.failure(.failed))])
  }

  @Test func everySubscriberGetsTheWholePlayback() {
    let record = Record<Int, Never>(output: [1, 2], completion: .finished)
    let first = TestSubscriber<Int, Never>()
    let second = TestSubscriber<Int, Never>()
    record.subscribe(first)
    record.subscribe(second)
    #expect(first.values == [1, 2])
    #expect(second.values == [1, 2])
    #expect(second.completion == .finished)
  }

  @Test func cancelStopsPlayback() {
    let record = Record<Int, RecordTestError>(output: [1, 2, 3], completion: .failure(.failed))
    let subscriber = TestSubscriber<Int, RecordTestError>(initialDemand: .max(1))
    record.subscribe(subscriber)
    subscriber.cancel()
    subscriber.request(.unlimited)
    #expect(subscriber.values == [1])
    #expect(subscriber.completion == nil)
  }

  // MARK: References

  @Test func failedPlaybackReleasesTheSubscriber() {
    weak var weakProbe: CapturedProbe?
    var subscription: (any Subscription)?
    var completion: Subscribers.Completion<RecordTestError>?
    do {
      let probe = CapturedProbe()
      weakProbe = probe
      Record<Int, RecordTestError>(output: [1], completion: .failure(.failed)).subscribe(
        AnySubscriber(
          receiveSubscription: { subscription = $0 },
          receiveValue: { _ in
            _ = probe
            return .none
          },
          receiveCompletion: { completion = $0 }))
    }
    #expect(weakProbe != nil)
    subscription?.request(.max(1))
    #expect(completion == .failure(.failed))
    #expect(weakProbe == nil)
    subscription = nil
  }

  @Test func cancelledPlaybackReleasesTheSubscriber() {
    weak var weakProbe: CapturedProbe?
    var subscription: (any Subscription)?
    do {
      let probe = CapturedProbe()
      weakProbe = probe
      Record<Int, Never>(output: [1, 2], completion: .finished).subscribe(
        AnySubscriber(
          receiveSubscription: { subscription = $0 },
          receiveValue: { _ in
            _ = probe
            return .none
          }))
    }
    #expect(weakProbe != nil)
    subscription?.cancel()
    #expect(weakProbe == nil)
    subscription = nil
  }

  /// An empty recording completes at once, without demand, through `Subscriptions.empty`.
  /// (Matches.) Evidence (OpenCombine): Tests/OpenCombineTests/PublisherTests/RecordTests.swift
  /// `testEmptyRecord`, `testEmptyRecordFailed` (`.subscription("Empty")`).
  @Test func emptyRecordCompletesWithoutDemand() {
    let subscriber = RecordingSubscriber<Int, ParityError>(initialDemand: .none)
    Record<Int, ParityError> { $0.receive(completion: .failure(ParityError())) }.subscribe(subscriber)
    #expect(subscriber.subscription.map { "\($0)" } == "Empty")
    #expect(subscriber.history == ["subscription(Empty)", "failure(ParityError())"])

    var recording = Record<Int, ParityError> { _ in }.recording
    recording.receive(0)
    recording.receive(completion: .failure(ParityError()))
    #expect(recording.output == [0])
  }
}

private enum CodableRecordError: String, Error, Codable, Equatable {
  case offline
}

/// Encodes a recording through `encode(into:)`, Combine's other name for `encode(to:)`.
private struct EncodedInto: Encodable {
  let recording: Record<String, CodableRecordError>.Recording

  func encode(to encoder: any Encoder) throws {
    try recording.encode(into: encoder)
  }
}

/// Combine's encoded form of `Record`, pinned so that recordings written by Combine play back
/// here and the other way round.
@Suite(.leakChecked)
struct RecordCodingTests {
  private func json<T: Encodable>(_ value: T) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    return String(decoding: try encoder.encode(value), as: UTF8.self)
  }

  @Test func recordEncodesItsRecording() throws {
    let record = Record<String, CodableRecordError>(output: ["one", "two"], completion: .failure(.offline))
    #expect(
      try json(record)
        == #"{"recording":{"completion":{"error":"offline","success":false},"output":["one","two"]}}"#)
  }

  @Test func recordingEncodesOutputAndCompletion() throws {
    let recording = Record<Int, Never>.Recording(output: [1, 2], completion: .finished)
    #expect(try json(recording) == #"{"completion":{"success":true},"output":[1,2]}"#)
  }

  @Test func encodeIntoWritesWhatEncodeToWrites() throws {
    let recording = Record<String, CodableRecordError>.Recording(output: ["a"], completion: .failure(.offline))
    #expect(try json(EncodedInto(recording: recording)) == json(recording))
  }

  @Test func decodedRecordPlaysBackWhatWasRecorded() throws {
    let json = #"{"recording":{"output":["one","two"],"completion":{"success":false,"error":"offline"}}}"#
    let record = try JSONDecoder().decode(Record<String, CodableRecordError>.self, from: Data(json.utf8))
    let subscriber = TestSubscriber<String, CodableRecordError>()
    record.subscribe(subscriber)
    #expect(
      subscriber.events == [.subscription, .value("one"), .value("two"), .completion(.failure(.offline))])
  }

  @Test func roundTripKeepsOutputAndCompletion() throws {
    let original = Record<Int, Never>(output: [5, 6, 7], completion: .finished)
    let decoded = try JSONDecoder().decode(Record<Int, Never>.self, from: JSONEncoder().encode(original))
    #expect(decoded.recording.output == [5, 6, 7])
    #expect(decoded.recording.completion == .finished)
  }

  @Test func recordingWithoutItsCompletionIsADecodingError() {
    #expect(throws: DecodingError.self) {
      try JSONDecoder().decode(Record<Int, Never>.Recording.self, from: Data(#"{"output":[1]}"#.utf8))
    }
  }
}

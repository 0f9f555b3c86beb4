import Conduit
import ConduitTesting
import Dispatch
import Testing

/// `record()` and the awaitable `next(_:timeout:)` and `completion(timeout:)` of `TestSubscriber`.
@Suite(.leakChecked)
struct TestSubscriberWaitingTests {
  struct Boom: Error {}

  @Test func nextReturnsValuesInTurnAndCompletionTheEnd() async throws {
    let recorder = [1, 2, 3, 4].publisher.record()
    #expect(try await recorder.next(3) == [1, 2, 3])
    #expect(try await recorder.next() == [4])
    #expect(try await recorder.completion() == .finished)
    #expect(recorder.values == [1, 2, 3, 4])
    #expect(recorder.violations.isEmpty)
  }

  @Test func nextWaitsForValuesSentLaterOnAnotherThread() async throws {
    let subject = PassthroughSubject<Int, Never>()
    let recorder = subject.record()
    let queue = DispatchQueue(label: "sender")
    queue.async {
      for value in 1...3 { subject.send(value) }
      subject.send(completion: .finished)
    }
    #expect(try await recorder.next(2, timeout: .seconds(10)) == [1, 2])
    #expect(try await recorder.next(1, timeout: .seconds(10)) == [3])
    #expect(try await recorder.completion(timeout: .seconds(10)) == .finished)
  }

  @Test func aStreamThatFinishesEarlyThrowsNamingWhatArrived() async {
    let subject = PassthroughSubject<Int, Never>()
    let recorder = subject.record()
    subject.send(7)
    subject.send(completion: .finished)
    await #expect {
      _ = try await recorder.next(3)
    } throws: { error in
      let error = error as? TestSubscriberWaitError
      return error?.reason == .completed
        && error?.description == "next(3): the stream finished after 1 of the 3 values asked for: [7]"
    }
  }

  @Test func aStreamThatFailsThrowsNamingTheFailure() async {
    let subject = PassthroughSubject<Int, Boom>()
    let recorder = subject.record()
    let waiting = Task { try await recorder.next(2, timeout: .seconds(10)) }
    subject.send(1)
    subject.send(completion: .failure(Boom()))
    await #expect {
      _ = try await waiting.value
    } throws: { error in
      let error = error as? TestSubscriberWaitError
      return error?.reason == .completed
        && error?.description == "next(2): the stream failed with Boom() after 1 of the 2 values asked for: [1]"
    }
  }

  @Test func theTimeoutThrowsNamingWhatArrivedAndLetsGoOfTheSubscriber() async throws {
    let subject = PassthroughSubject<Int, Never>()
    let recorder = subject.record()
    subject.send(1)
    _ = try await recorder.next()
    subject.send(2)
    await #expect {
      _ = try await recorder.next(2, timeout: .milliseconds(20))
    } throws: { error in
      let error = error as? TestSubscriberWaitError
      return error?.reason == .timedOut
        && error?.description
          == "next(2): nothing more arrived within 0.02 seconds; not yet taken: [2], completion: none"
    }
    // A timed-out call takes nothing: the value is still there for the next one.
    #expect(try await recorder.next() == [2])
    recorder.cancel()
  }

  @Test func aCancelledWaitThrowsCancellationError() async {
    let recorder = PassthroughSubject<Int, Never>().record()
    let waiting = Task { try await recorder.next(1, timeout: .seconds(60)) }
    waiting.cancel()
    await #expect(throws: CancellationError.self) {
      _ = try await waiting.value
    }
    recorder.cancel()
  }

  @Test func completionWaitsForAFailure() async throws {
    let recorder = Fail<Int, Boom>(error: Boom()).record()
    guard case .failure = try await recorder.completion() else {
      Issue.record("the failure is the completion")
      return
    }
  }
}

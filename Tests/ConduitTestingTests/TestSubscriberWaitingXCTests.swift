#if canImport(XCTest)
  import Conduit
  import ConduitTesting
  import Dispatch
  import XCTest

  /// The awaitable recorder in an XCTest async test, with a pipeline on a real queue.
  final class TestSubscriberWaitingXCTests: XCTestCase {
    func testNextAndCompletionAwaitAPipelineOnARealQueue() async throws {
      let subject = PassthroughSubject<Int, Never>()
      let recorder = subject.map { $0 * 10 }.receive(on: DispatchQueue(label: "delivery")).record()
      subject.send(1)
      subject.send(2)
      subject.send(completion: .finished)
      let firstTwo = try await recorder.next(2, timeout: .seconds(10))
      XCTAssertEqual(firstTwo, [10, 20])
      let completion = try await recorder.completion(timeout: .seconds(10))
      XCTAssertEqual(completion, .finished)
    }

    func testTheTimeoutThrowsInXCTestToo() async {
      let recorder = PassthroughSubject<Int, Never>().record()
      let error = await waitError { try await recorder.next(1, timeout: .milliseconds(10)) }
      XCTAssertEqual(error?.reason, .timedOut)
      XCTAssertEqual(
        error?.description, "next(1): nothing more arrived within 0.01 seconds; not yet taken: [], completion: none")
      recorder.cancel()
    }

    func testAStreamThatFinishesEarlyThrowsNamingWhatArrived() async {
      let subject = PassthroughSubject<Int, Never>()
      let recorder = subject.record()
      subject.send(7)
      subject.send(completion: .finished)
      let error = await waitError { try await recorder.next(3) }
      XCTAssertEqual(error?.reason, .completed)
      XCTAssertEqual(error?.description, "next(3): the stream finished after 1 of the 3 values asked for: [7]")
    }

    func testAStreamThatFailsThrowsNamingTheFailure() async {
      struct Boom: Error {}
      let subject = PassthroughSubject<Int, Boom>()
      let recorder = subject.record()
      subject.send(1)
      subject.send(completion: .failure(Boom()))
      let error = await waitError { try await recorder.next(2) }
      XCTAssertEqual(error?.reason, .completed)
      XCTAssertEqual(
        error?.description, "next(2): the stream failed with Boom() after 1 of the 2 values asked for: [1]")
    }

    /// The `TestSubscriberWaitError` that `wait` throws; fails the test if it returns or throws
    /// something else.
    private func waitError(
      _ wait: () async throws -> [Int], line: UInt = #line
    ) async -> TestSubscriberWaitError? {
      do {
        let values = try await wait()
        XCTFail("the wait returned \(values) instead of throwing", line: line)
      } catch let error as TestSubscriberWaitError {
        return error
      } catch {
        XCTFail("unexpected \(error)", line: line)
      }
      return nil
    }
  }
#endif

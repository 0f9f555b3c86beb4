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
      do {
        _ = try await recorder.next(1, timeout: .milliseconds(10))
        XCTFail("nothing was sent, so the wait times out")
      } catch let error as TestSubscriberWaitError {
        XCTAssertEqual(error.reason, .timedOut)
      } catch {
        XCTFail("unexpected \(error)")
      }
      recorder.cancel()
    }
  }
#endif

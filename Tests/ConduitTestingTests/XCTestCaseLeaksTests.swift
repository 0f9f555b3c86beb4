#if canImport(XCTest)
  import Conduit
  import ConduitTesting
  import Dispatch
  import XCTest

  /// `trackForLeaks` is for users' XCTest suites; Swift Testing's `.leakChecked` does not apply
  /// to an `XCTestCase`. A leak would fail the test through `XCTFail` at teardown, which cannot
  /// be observed from inside the same test, so only the passing paths are tested here.
  final class XCTestCaseLeaksTests: XCTestCase {
    final class Model {
      var cancellable: AnyCancellable?
      var total = 0

      func bind(to subject: PassthroughSubject<Int, Never>) {
        cancellable = subject.sink { [weak self] value in self?.total += value }
      }
    }

    func testTrackedObjectThatIsFreedPasses() {
      let subject = PassthroughSubject<Int, Never>()
      let model = Model()
      trackForLeaks(model)
      model.bind(to: subject)
      subject.send(2)
      XCTAssertEqual(model.total, 2)
    }

    func testTrackedObjectFreedOnAnotherThreadAfterTheTestPasses() {
      final class Box: @unchecked Sendable {
        // Handed to one other thread, which alone uses it from then on.
        var model: Model?
      }
      let box = Box()
      box.model = Model()
      trackForLeaks(box.model!)
      let testEnding = DispatchSemaphore(value: 0)
      DispatchQueue.global().async {
        testEnding.wait()
        box.model = nil
      }
      testEnding.signal()
    }
  }
#endif

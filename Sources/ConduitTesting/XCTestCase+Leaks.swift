#if canImport(XCTest)
  import XCTest
  import Dispatch

  extension XCTestCase {
    /// Fails the test, through `XCTFail`, if `instance` is still alive at teardown.
    ///
    /// Teardown waits up to a second for asynchronous cleanup before it decides.
    ///
    /// This is an extension to Combine.
    ///
    /// ```swift
    /// func testModelFreesItself() {
    ///     let model = Model()
    ///     trackForLeaks(model)
    ///     model.start()
    /// }
    /// ```
    public func trackForLeaks(_ instance: AnyObject, file: StaticString = #filePath, line: UInt = #line) {
      let watched = WeakReference(instance)
      let typeName = String(describing: type(of: instance))
      addTeardownBlock {
        let deadline = ContinuousClock.now.advanced(by: .seconds(1))
        while watched.object != nil && ContinuousClock.now < deadline {
          _ = DispatchSemaphore(value: 0).wait(timeout: .now() + .milliseconds(1))
        }
        if watched.object != nil {
          XCTFail(
            "\(typeName) is still alive at teardown: something keeps a strong reference to it (a sink capturing self, an assign(to:on:) whose target stores the token …)",
            file: file, line: line)
        }
      }
    }
  }

  private final class WeakReference: @unchecked Sendable {
    // Only read after the test body has finished.
    weak var object: AnyObject?

    init(_ object: AnyObject) {
      self.object = object
    }
  }
#endif

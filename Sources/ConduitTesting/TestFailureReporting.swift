#if canImport(Testing)
  import Testing
#endif
#if canImport(XCTest)
  import XCTest
#endif

/// Where a test double was made or called, for the failure it reports.
struct SourceCodeLocation: Sendable, CustomStringConvertible {
  let fileID: StaticString
  let filePath: StaticString
  let line: UInt
  let column: UInt

  var description: String { "\(fileID):\(line)" }
}

/// Fails the test that is running, in whichever framework runs it: through `Issue.record` (as
/// ``LeakCheckedTrait`` does) inside a Swift Testing test, otherwise through `XCTFail` (as
/// `XCTestCase.trackForLeaks` does). Without XCTest, the message is printed, so that it is never
/// lost.
///
/// Swift Testing knows its current test through a task-local value, so a failure reported on a
/// thread of its own (a Dispatch queue) goes to XCTest; test doubles report on the thread that
/// calls them.
func reportTestFailure(_ message: String, at location: SourceCodeLocation) {
  #if canImport(Testing)
    if Test.current != nil {
      Issue.record(
        Comment(rawValue: message),
        sourceLocation: SourceLocation(
          fileID: "\(location.fileID)", filePath: "\(location.filePath)", line: Int(location.line),
          column: Int(location.column)))
      return
    }
  #endif
  #if canImport(XCTest)
    XCTFail(message, file: location.filePath, line: location.line)
  #else
    print("error: \(location): \(message)")
  #endif
}

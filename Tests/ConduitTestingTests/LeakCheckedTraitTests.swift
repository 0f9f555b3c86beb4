import Conduit
import ConduitTesting
import Dispatch
import Synchronization
import Testing

@Suite(.leakChecked)
struct LeakCheckedTraitTests {
  struct TestError: Error {}

  @Test func defaultsToOneSecondAndAppliesToEveryTestOfASuite() {
    #expect(LeakCheckedTrait.leakChecked.timeout == .seconds(1))
    #expect(LeakCheckedTrait.leakChecked.isRecursive)
    #expect(LeakCheckedTrait.leakChecked(timeout: .seconds(3)).timeout == .seconds(3))
  }

  @Test func passingTestRecordsNoIssue() async throws {
    let test = try #require(Test.current)
    let keeper = Keeper()
    // An issue recorded here would fail this test.
    try await LeakCheckedTrait.leakChecked.provideScope(for: test, testCase: Test.Case.current) {
      let subject = PassthroughSubject<Int, Never>()
      let token = subject.sink { _ in }
      subject.send(1)
      keeper.keep(token)
      keeper.releaseAll()
    }
    #expect(keeper.count == 0)
  }

  @Test func leakingTestRecordsAnIssueNamingTheSurvivorsAtTheTest() async throws {
    let test = try #require(Test.current)
    let keeper = Keeper()
    let sinkLine = #line + 5
    try await withKnownIssue {
      try await LeakCheckedTrait.leakChecked(timeout: .milliseconds(20)).provideScope(
        for: test, testCase: Test.Case.current
      ) {
        keeper.keep(PassthroughSubject<Int, Never>().sink { _ in })
      }
    } matching: { issue in
      issue.comments.map(\.rawValue) == [
        """
        2 object(s) outlived the leak check:
          - SubjectDownstream<Subscribers.Sink<Int, Never>>
          - Subscribers.Sink<Int, Never>
        1 pipeline leaked: Sink<Int, Never> ← PassthroughSubject, subscribed at LeakCheckedTraitTests.swift:\(sinkLine)
        """
      ] && issue.sourceLocation == test.sourceLocation
    }
    #expect(keeper.count == 1)
    keeper.releaseAll()
  }

  @Test func waitsForTeardownOnAnotherThread() async throws {
    let test = try #require(Test.current)
    try await LeakCheckedTrait.leakChecked.provideScope(for: test, testCase: Test.Case.current) {
      let token = PassthroughSubject<Int, Never>().sink { _ in }
      let testEnding = DispatchSemaphore(value: 0)
      DispatchQueue.global().async {
        testEnding.wait()
        token.cancel()
      }
      testEnding.signal()
    }
  }

  @Test func rethrowsTheTestsOwnError() async throws {
    let test = try #require(Test.current)
    await #expect(throws: TestError.self) {
      try await LeakCheckedTrait.leakChecked.provideScope(for: test, testCase: Test.Case.current) {
        throw TestError()
      }
    }
  }

  @Test func suiteLevelScopeRunsWithoutACheck() async throws {
    let test = try #require(Test.current)
    let keeper = Keeper()
    // Without a test case the trait is scoping a whole suite: each of its tests is checked
    // on its own, so the suite as a whole is not.
    try await LeakCheckedTrait.leakChecked(timeout: .milliseconds(20)).provideScope(for: test, testCase: nil) {
      keeper.keep(PassthroughSubject<Int, Never>().sink { _ in })
    }
    #expect(keeper.count == 1)
    keeper.releaseAll()
  }

  @Test(.leakChecked(timeout: .seconds(2))) func appliesToASingleTestToo() {
    let subject = CurrentValueSubject<Int, Never>(1)
    var received: [Int] = []
    let token = subject.sink { received.append($0) }
    subject.value = 2
    token.cancel()
    #expect(received == [1, 2])
  }
}

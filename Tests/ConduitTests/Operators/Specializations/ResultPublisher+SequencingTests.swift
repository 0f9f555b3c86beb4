import Conduit
import ConduitTesting
import Testing

private struct ResultSequencingTestError: Error, Equatable {}

@Suite(.leakChecked)
struct ResultPublisherSequencingTests {
  @Test func replaceEmptyReturnsTheSamePublisher() {
    let success = Result<Int, ResultSequencingTestError>.Publisher(5)
    let failure = Result<Int, ResultSequencingTestError>.Publisher(ResultSequencingTestError())
    let replaced: Result<Int, ResultSequencingTestError>.Publisher = success.replaceEmpty(with: 0)
    #expect(replaced == success)
    #expect(failure.replaceEmpty(with: 0) == failure)
  }
}

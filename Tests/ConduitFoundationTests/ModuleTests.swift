import ConduitFoundation
import ConduitTesting
import Testing

/// `import ConduitFoundation` alone is enough to use Conduit.
@Suite(.leakChecked)
struct ModuleTests {
  @Test func importingConduitFoundationBringsConduit() {
    var received: [Int] = []
    let token = [1, 2, 3].publisher.map { $0 * 2 }.sink { received.append($0) }
    token.cancel()
    #expect(received == [2, 4, 6])
  }
}

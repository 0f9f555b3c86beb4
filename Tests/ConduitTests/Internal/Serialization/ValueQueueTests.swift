import ConduitTesting
import Testing

@testable import Conduit

/// The ring buffer behind `buffer` and the operators that hold values back.
@Suite(.leakChecked)
struct ValueQueueTests {
  @Test func keepsOrderAcrossWrapAroundAndGrowth() {
    var queue = ValueQueue<Int>()
    var expected: [Int] = []
    var popped: [Int] = []
    var next = 0
    // Uneven pushes and pops make the head wrap around and the storage grow while wrapped.
    for round in 0..<50 {
      for _ in 0..<(round % 7 + 1) {
        queue.append(next)
        expected.append(next)
        next += 1
      }
      for _ in 0..<(round % 5 + 1) {
        if let value = queue.popFirst() { popped.append(value) }
      }
      #expect(queue.count == expected.count - popped.count)
    }
    while let value = queue.popFirst() { popped.append(value) }
    #expect(popped == expected)
    #expect(queue.isEmpty)
    #expect(queue.popFirst() == nil)
  }

  @Test func releasesAPoppedElementAtOnce() {
    final class Token {}
    var queue = ValueQueue<Token>()
    weak var released: Token?
    do {
      let token = Token()
      released = token
      queue.append(token)
      queue.append(Token())
    }
    #expect(released != nil)
    _ = queue.popFirst()
    #expect(released == nil)
    queue.removeAll()
    #expect(queue.isEmpty)
  }
}

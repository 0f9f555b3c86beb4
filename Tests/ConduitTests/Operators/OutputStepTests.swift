import ConduitTesting
import Testing

@testable import Conduit

/// The decisions of `output(in:)`, element by element, without a subscription.
@Suite(.leakChecked)
struct OutputStepTests {
  fileprivate typealias Step = OutputStep<Int, Oops>

  /// What the step does with each of `inputs`, as text: `drop`, `emit(n)`, `finish`.
  private func steps(_ step: inout Step, _ inputs: [Int]) throws -> [String] {
    var done: [String] = []
    for input in inputs {
      switch try step.step(input) {
      case .drop: done.append("drop")
      case .emit(let value): done.append("emit(\(value))")
      case .finish: done.append("finish")
      }
    }
    return done
  }

  @Test func elementsBeforeTheRangeAreDroppedThenTheRangePassesAndTheNextFinishes() throws {
    var step = Step(range: 2..<4)
    #expect(step.position == .before(untilStart: 2, count: 2))
    #expect(try steps(&step, [10, 11]) == ["drop", "drop"])
    #expect(step.position == .within(remaining: 2))
    #expect(try steps(&step, [12, 13, 14]) == ["emit(12)", "emit(13)", "finish"])
  }

  @Test func aRangeFromZeroStartsWithin() throws {
    var step = Step(range: 0..<1)
    #expect(step.position == .within(remaining: 1))
    #expect(try steps(&step, [7, 8]) == ["emit(7)", "finish"])
  }

  @Test func anEmptyRangeFinishesAtTheFirstElementPastItsStart() throws {
    var fromZero = Step(range: 0..<0)
    #expect(try steps(&fromZero, [1]) == ["finish"])
    var later = Step(range: 1..<1)
    #expect(try steps(&later, [1, 2]) == ["drop", "finish"])
  }

  @Test func theStepStaysPastTheRangeOnceThere() throws {
    var step = Step(range: 0..<1)
    _ = try steps(&step, [1])
    #expect(try steps(&step, [2, 3]) == ["finish", "finish"])
    #expect(step.position == .within(remaining: 0))
  }
}

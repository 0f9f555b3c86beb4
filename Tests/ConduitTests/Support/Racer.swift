import Conduit
import Synchronization
import Testing

/// Runs `rounds` rounds: thread 0 builds a round with `setup`, then every thread `index` runs
/// `sides[index]` on it at once (after a short, varying spin), then thread 0 runs `check`, which
/// returns a description of what went wrong, if anything. Stops at the first problem and
/// reports it with its round.
final class Racer<Round>: @unchecked Sendable {
  private let setup: () -> Round
  private let sides: [(Round) -> Void]
  private let check: (Round) -> String?
  private let barrier: SpinBarrier
  // Written by thread 0 between barriers, read by the others after them.
  private var current: Round?
  private var problem: String?

  init(setup: @escaping () -> Round, sides: [(Round) -> Void], check: @escaping (Round) -> String?) {
    self.setup = setup
    self.sides = sides
    self.check = check
    barrier = SpinBarrier(parties: sides.count)
  }

  func run(rounds: Int) -> String? {
    runOnThreads(sides.count) { thread in self.runThread(thread, rounds: rounds) }
    return problem
  }

  private func runThread(_ thread: Int, rounds: Int) {
    var seed = UInt64(thread + 1) &* 0x9E37_79B9_7F4A_7C15
    for index in 0..<rounds {
      if thread == 0 { current = setup() }
      barrier.wait()
      let round = current!
      seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      for step in 0..<Int(seed >> 59) { _ = step &* 3 }
      sides[thread](round)
      barrier.wait()
      if thread == 0 {
        if let found = check(round) { problem = "round \(index): \(found)" }
        current = nil
      }
      barrier.wait()
      if problem != nil { return }
    }
  }
}

func race<Round>(
  rounds: Int, setup: @escaping () -> Round, sides: [(Round) -> Void], check: @escaping (Round) -> String?
) -> String? {
  Racer(setup: setup, sides: sides, check: check).run(rounds: rounds)
}

import Synchronization

enum Baselines {
  nonisolated(unsafe) static let all: [Baseline] =
    [
      Baseline(name: "baseline.LockedCall", measure: lockedCall),
      Baseline(name: "baseline.ClosureChain", measure: closureChain),
      Baseline(name: "baseline.Alloc5", measure: alloc5),
      Baseline(name: "baseline.QueueAsync", measure: TimeWorkloads.queueAsync),
      Baseline(name: SchedulerWorkloads.thousandPendingName) { SchedulerWorkloads.costPerAction(pending: 1_000) },
      Baseline(name: BridgeWorkloads.streamFromAnotherThreadName, measure: BridgeWorkloads.streamFromAnotherThread),
    ] + ConcurrencyWorkloads.baselines + ObservationWorkloads.baselines + FoundationWorkloads.baselines

  /// One uncontended `Mutex` round trip plus one opaque closure call.
  static func lockedCall() -> Double {
    let mutex = Mutex(0)
    let closure: (Int) -> Void = opaque { blackHole($0) }
    return measure(operations: 2_000_000) { count in
      for value in 0..<count {
        let current = mutex.withLock { state -> Int in
          state &+= value
          return state
        }
        closure(current)
      }
    }
  }

  /// Five opaque closures applied in turn to each element of an array.
  static func closureChain() -> Double {
    let closures: [(Int) -> Int] = opaque([{ $0 &+ 1 }, { $0 &* 3 }, { $0 &- 2 }, { $0 ^ 5 }, { $0 &+ 7 }])
    let input = Array(0..<100_000)
    return measure(operations: input.count) { _ in
      var sum = 0
      for element in input {
        var value = element
        for closure in closures { value = closure(value) }
        sum &+= value
      }
      blackHole(sum)
    }
  }

  final class Node {
    var next: Node?
    let value: Int
    init(_ value: Int, next: Node?) {
      self.value = value
      self.next = next
    }
  }

  /// Five small class instances allocated, linked and released.
  static func alloc5() -> Double {
    measure(operations: 500_000) { count in
      for value in 0..<count {
        var head: Node? = nil
        for offset in 0..<5 { head = Node(value &+ offset, next: head) }
        blackHole(head)
      }
    }
  }
}

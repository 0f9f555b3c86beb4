import Conduit
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Lets a fixed number of threads meet between rounds, spinning rather than sleeping, and giving
/// up the processor every few spins (there may be more threads than processors).
final class SpinBarrier: Sendable {
  private let parties: Int
  private let arrived = Atomic<Int>(0)
  private let generation = Atomic<Int>(0)

  init(parties: Int) {
    self.parties = parties
  }

  func wait() {
    let current = generation.load(ordering: .acquiring)
    if arrived.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue == parties {
      arrived.store(0, ordering: .relaxed)
      generation.wrappingAdd(1, ordering: .releasing)
      return
    }
    spin(until: { generation.load(ordering: .acquiring) != current })
  }
}

/// Spins until `condition` holds, yielding the processor every 16 tries, so that the thread it
/// waits for gets to run on a machine with few cores.
func spin(until condition: () -> Bool) {
  var spins = 0
  while !condition() {
    spins += 1
    if spins % 16 == 0 { sched_yield() }
  }
}

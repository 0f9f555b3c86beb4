import Synchronization

/// The two forms of "only one thread calls the downstream" that Conduit uses, written by hand
/// around one opaque call per value, so that their costs can be compared apart from any operator.
/// `Counted` is the subjects' and combining operators' form: an atomic count of deliveries owed,
/// taken from 0 to 1 and back, with no lock. `Flagged` is `DeliveryOwnership`'s: a flag in
/// locked state, claimed in one critical section and given back in another. Neither is
/// contended here, so the figures are the price each form adds to every value.
enum ReferenceDelivery {
  final class Counted {
    let ownership = Atomic<Int>(0)
    let queue = Mutex<[Int]>([])
    let deliver: (Int) -> Void

    init(deliver: @escaping (Int) -> Void) { self.deliver = deliver }

    func send(_ value: Int) {
      if ownership.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged {
        deliver(value)
        if !ownership.compareExchange(expected: 1, desired: 0, ordering: .releasing).exchanged { drain() }
      } else {
        queue.withLock { $0.append(value) }
        if ownership.wrappingAdd(1, ordering: .acquiringAndReleasing).oldValue == 0 { drain() }
      }
    }

    private func drain() {
      var owed = 1
      while owed > 0 {
        let values = queue.withLock { queue in
          defer { queue = [] }
          return queue
        }
        for value in values { deliver(value) }
        owed = ownership.wrappingSubtract(owed, ordering: .acquiringAndReleasing).newValue
      }
    }
  }

  final class Flagged {
    struct State {
      var claimed = false
      var queue: [Int] = []
    }

    let state = Mutex(State())
    let deliver: (Int) -> Void

    init(deliver: @escaping (Int) -> Void) { self.deliver = deliver }

    func send(_ value: Int) {
      let owns = state.withLock { state -> Bool in
        if state.claimed {
          state.queue.append(value)
          return false
        }
        state.claimed = true
        return true
      }
      guard owns else { return }
      var next: Int? = value
      while let current = next {
        deliver(current)
        next = state.withLock { state -> Int? in
          if state.queue.isEmpty {
            state.claimed = false
            return nil
          }
          return state.queue.removeFirst()
        }
      }
    }
  }
}

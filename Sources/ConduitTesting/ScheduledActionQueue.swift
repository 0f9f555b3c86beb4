/// The pending work of a ``TestScheduler``: a binary min-heap keyed by (due time, sequence
/// number), so that work runs in due order and ties run in the order they were scheduled.
///
/// Insertion and removal are O(log n). The heap holds only the keys and a slot number; the
/// work itself waits in a slot array, so that sifting moves small entries and never retains or
/// releases a closure. Removal moves the hole left at the root down to a leaf through the
/// earlier child (one comparison per level), then places the last entry on the way back up;
/// the last entry usually belongs near the bottom, so this costs about half the comparisons
/// of the textbook sift-down.
struct ScheduledActionQueue<Time: Comparable> {
  /// What an entry runs: a one-off action, or the next firing of a repeating action, which the
  /// scheduler keeps by its identifier so that cancelling it releases the action at once.
  enum Work {
    case once(() -> Void)
    case repetition(UInt64)
  }

  struct Key {
    let due: Time
    let sequence: UInt64
    let slot: Int

    @inline(__always)
    func precedes(_ other: Key) -> Bool {
      if due < other.due { return true }
      return sequence < other.sequence && !(other.due < due)
    }
  }

  private var heap: [Key] = []
  private var slots: [Work?] = []
  private var freeSlots: [Int] = []

  var count: Int { heap.count }

  /// When the entry that runs next is due.
  var firstDue: Time? { heap.first?.due }

  /// The identifier of the repetition that runs next, if a repetition runs next.
  var firstRepetition: UInt64? {
    guard let key = heap.first, case .repetition(let id) = slots[key.slot] else { return nil }
    return id
  }

  mutating func insert(due: Time, sequence: UInt64, _ work: Work) {
    let slot: Int
    if let free = freeSlots.popLast() {
      slot = free
      slots[slot] = work
    } else {
      slot = slots.count
      slots.append(work)
    }
    let key = Key(due: due, sequence: sequence, slot: slot)
    heap.append(key)
    var hole = heap.count - 1
    while hole > 0 {
      let parent = (hole - 1) / 2
      guard key.precedes(heap[parent]) else { break }
      heap[hole] = heap[parent]
      hole = parent
    }
    heap[hole] = key
  }

  /// Removes the entry that runs next and returns its due time and work.
  mutating func removeFirst() -> (due: Time, work: Work)? {
    guard let first = heap.first else { return nil }
    let last = heap.removeLast()
    let count = heap.count
    if count > 0 {
      var hole = 0
      while true {
        let left = 2 * hole + 1
        guard left < count else { break }
        let right = left + 1
        let earlier = right < count && heap[right].precedes(heap[left]) ? right : left
        heap[hole] = heap[earlier]
        hole = earlier
      }
      while hole > 0 {
        let parent = (hole - 1) / 2
        guard last.precedes(heap[parent]) else { break }
        heap[hole] = heap[parent]
        hole = parent
      }
      heap[hole] = last
    }
    let work = slots[first.slot].take()!
    if heap.isEmpty {
      slots.removeAll(keepingCapacity: true)
      freeSlots.removeAll(keepingCapacity: true)
    } else {
      freeSlots.append(first.slot)
    }
    return (first.due, work)
  }
}

import Synchronization

/// One value a producer sends: which producer sent it and its place in that producer's
/// sequence, so that a ledger tells a lost value from a duplicate or a reordered one.
struct Tagged: Sendable, Hashable {
  let producer: Int
  let sequence: Int
}

/// One producer of a subject: a thread or a task that numbers what it sends.
///
/// Only the producer itself sends, so its count is written by one thread at a time; the checks
/// read it once the producer has stopped.
final class Producer: Sendable {
  let index: Int
  private let count = Atomic<Int>(0)

  init(index: Int) {
    self.index = index
  }

  /// How many values the producer has sent.
  var sent: Int { count.load(ordering: .acquiring) }

  /// The sequence number of the last value sent, or `nil` before the first.
  var lastSent: Int? { sent == 0 ? nil : sent - 1 }

  /// Tags the next value, lets `send` send it, then counts it: a value is counted only once its
  /// `send` has returned, so the count never runs ahead of what a subscriber can have seen.
  func sendNext(_ send: (Tagged) -> Void) {
    let value = Tagged(producer: index, sequence: count.load(ordering: .relaxed))
    send(value)
    count.store(value.sequence + 1, ordering: .releasing)
  }
}

/// The failure of a buffer that overflows where the soak promises it never does.
struct Overflow: Error {}

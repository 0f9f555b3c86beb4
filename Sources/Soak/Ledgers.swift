import Synchronization

/// A record of what one subscriber of a load received, checked as it arrives and once more when
/// the load has stopped; the figures sum what every ledger counted.
protocol Ledger: Sendable {
  /// What the ledger watches, as failures name it.
  var name: String { get }
  /// How many values have arrived.
  var delivered: Int { get }
}

/// The ledger of a pipeline that promises every value exactly once, in the order each producer
/// sent it: a value that comes before its turn means the ones in between were lost, one that
/// comes after its turn was duplicated or reordered.
final class OrderedLedger: Ledger {
  let name: String
  private let arrived = Atomic<Int>(0)
  // Per producer, the sequence number that must come next.
  private let expected: Mutex<[Int]>
  private let finished = Atomic<Bool>(false)

  init(_ name: String, producers: Int) {
    self.name = name
    expected = Mutex(Array(repeating: 0, count: producers))
  }

  var delivered: Int { arrived.load(ordering: .relaxed) }

  /// Whether the pipeline's completion has arrived.
  var isFinished: Bool { finished.load(ordering: .acquiring) }

  func receive(_ value: Tagged) {
    arrived.wrappingAdd(1, ordering: .relaxed)
    let next = expected.withLock { expected in
      let next = expected[value.producer]
      // After a gap the count moves on past it, so one loss is reported once, not at every
      // value after it.
      if value.sequence >= next { expected[value.producer] = value.sequence + 1 }
      return next
    }
    if value.sequence < next {
      findings.record(
        "\(name): producer \(value.producer)'s value \(value.sequence) arrived again or out of order, after \(next - 1)"
      )
    } else if value.sequence > next {
      findings.record("\(name): producer \(value.producer)'s values \(next)..<\(value.sequence) were lost")
    }
  }

  func receiveCompletion() {
    finished.store(true, ordering: .releasing)
  }

  /// Checks, once the producers have stopped and the pipeline has drained, that every value each
  /// producer sent has arrived.
  func verify(against producers: [Producer]) {
    let expected = expected.withLock { $0 }
    for producer in producers where expected[producer.index] != producer.sent {
      findings.record(
        "\(name): producer \(producer.index) sent \(producer.sent) values, the last to arrive was number "
          + "\(expected[producer.index]); the rest were lost")
    }
  }

  /// Whether every value each producer sent has arrived.
  func hasReceivedAll(from producers: [Producer]) -> Bool {
    let expected = expected.withLock { $0 }
    return producers.allSatisfy { expected[$0.index] >= $0.sent }
  }
}

/// The ledger of a pipeline that promises every value exactly once in no particular order, such
/// as a `flatMap` whose responses finish when they finish: each value is expected before it is
/// sent and crossed off when it arrives, so it holds only the values in flight.
final class UnorderedLedger: Ledger {
  let name: String
  private let arrived = Atomic<Int>(0)
  // The values sent whose response has not arrived.
  private let awaited = Mutex<Set<Tagged>>([])

  init(_ name: String) {
    self.name = name
  }

  var delivered: Int { arrived.load(ordering: .relaxed) }

  /// How many values are in flight.
  var inFlight: Int { awaited.withLock { $0.count } }

  /// Notes a value about to be sent; call it before `send`, as the response may come before
  /// `send` returns.
  func expect(_ value: Tagged) {
    awaited.withLock { _ = $0.insert(value) }
  }

  func receive(_ value: Tagged) {
    arrived.wrappingAdd(1, ordering: .relaxed)
    if awaited.withLock({ $0.remove(value) }) == nil {
      findings.record(
        "\(name): producer \(value.producer)'s value \(value.sequence) arrived twice, or without being sent")
    }
  }

  /// Checks, once the producers have stopped and the pipeline has drained, that nothing is
  /// still awaited.
  func verify() {
    let missing = awaited.withLock { $0.sorted { ($0.producer, $0.sequence) < ($1.producer, $1.sequence) } }
    if let first = missing.first {
      findings.record(
        "\(name): \(counted(missing.count, "value")) never arrived, the first being producer \(first.producer)'s "
          + "value \(first.sequence)")
    }
  }
}

/// The ledger of a pipeline that may drop values (`debounce`, `throttle`, a buffer that drops,
/// a subscriber that comes and goes) but promises never to repeat or reorder one: each
/// producer's values must arrive in increasing order.
final class LossyLedger: Ledger {
  let name: String
  private let arrived = Atomic<Int>(0)
  // Per producer, the sequence number of the last value that arrived, or -1.
  private let last: Mutex<[Int]>
  private let finished = Atomic<Bool>(false)

  init(_ name: String, producers: Int) {
    self.name = name
    last = Mutex(Array(repeating: -1, count: producers))
  }

  var delivered: Int { arrived.load(ordering: .relaxed) }

  /// Whether the pipeline's completion has arrived.
  var isFinished: Bool { finished.load(ordering: .acquiring) }

  func receiveCompletion() {
    finished.store(true, ordering: .releasing)
  }

  func receive(_ value: Tagged) {
    arrived.wrappingAdd(1, ordering: .relaxed)
    let previous = last.withLock { last in
      let previous = last[value.producer]
      last[value.producer] = max(previous, value.sequence)
      return previous
    }
    if value.sequence <= previous {
      findings.record(
        "\(name): producer \(value.producer)'s value \(value.sequence) arrived after its value \(previous): "
          + "repeated or reordered")
    }
  }

  /// The sequence number of the last value of `producer` that arrived, or `nil`.
  func lastArrived(from producer: Int) -> Int? {
    let value = last.withLock { $0[producer] }
    return value < 0 ? nil : value
  }
}

/// The ledger of a short-lived pipeline whose values may arrive in any order and may be cut off
/// by its cancellation, but never twice.
final class UniqueLedger: Sendable {
  private let name: String
  private let seen = Mutex<Set<Int>>([])

  init(_ name: String) {
    self.name = name
  }

  var count: Int { seen.withLock { $0.count } }

  func receive(_ value: Int) {
    if !seen.withLock({ $0.insert(value).inserted }) {
      findings.record("\(name): value \(value) arrived twice")
    }
  }
}

import Conduit
import Synchronization
import Testing

/// Records values without a lock of its own: the publisher promises that calls into one
/// subscriber never overlap (DESIGN.md §2.3), and ThreadSanitizer checks that promise here.
/// An atomic in-flight counter notices overlaps in runs without the sanitizer.
///
/// With `cancelAt`, it cancels from inside `receive` once that many values have arrived, and,
/// when its demand is bounded, asks for each next value from inside `receive` through its
/// subscription (re-entrantly) rather than by its return value.
final class StressSubscriber: Subscriber, @unchecked Sendable {
  private let demand: Subscribers.Demand
  private let forbidden: Int?
  private let cancelAt: Int?
  private let received = Atomic<Int>(0)
  private let inFlight = Atomic<Int>(0)
  private let overlapCount = Atomic<Int>(0)
  private let forbiddenSeen = Atomic<Bool>(false)
  private let completion = Atomic<Bool>(false)
  private let receivedAtCancel = Atomic<Int>(-1)
  // Busy work done for each value, to make the subscriber slower than a send.
  private let workPerValue: Int
  private let work = Atomic<Int>(0)
  private let subscription = Locked<(any Subscription)?>(nil)
  // Written by whichever thread delivers (deliveries are serialized); read once they are over.
  private(set) var values: [Int] = []

  init(demand: Subscribers.Demand = .unlimited, forbidden: Int? = nil, workPerValue: Int = 0, cancelAt: Int? = nil) {
    self.demand = demand
    self.forbidden = forbidden
    self.workPerValue = workPerValue
    self.cancelAt = cancelAt
  }

  var count: Int { received.load(ordering: .acquiring) }
  var overlaps: Int { overlapCount.load(ordering: .relaxed) }
  var sawForbidden: Bool { forbiddenSeen.load(ordering: .relaxed) }
  var completed: Bool { completion.load(ordering: .relaxed) }
  var countWhenCancelReturned: Int { receivedAtCancel.load(ordering: .relaxed) }

  func receive(subscription: any Subscription) {
    self.subscription.withLock { $0 = subscription }
    subscription.request(demand)
  }

  func receive(_ input: Int) -> Subscribers.Demand {
    if inFlight.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue != 1 {
      overlapCount.wrappingAdd(1, ordering: .relaxed)
    }
    if input == forbidden { forbiddenSeen.store(true, ordering: .relaxed) }
    for step in 0..<workPerValue { work.wrappingAdd(step & 1, ordering: .relaxed) }
    values.append(input)
    let seen = received.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue
    inFlight.wrappingSubtract(1, ordering: .acquiringAndReleasing)
    if let cancelAt {
      if seen >= cancelAt {
        cancelAndRecord()
      } else if demand != .unlimited {
        subscription.withLock { $0 }?.request(.max(1))
      }
    }
    return .none
  }

  func receive(completion: Subscribers.Completion<Never>) {
    self.completion.store(true, ordering: .relaxed)
  }

  /// Cancels, then notes how many values had arrived by the time `cancel` returned.
  func cancelAndRecord() {
    subscription.withLock { $0 }?.cancel()
    let seen = received.load(ordering: .acquiring)
    _ = receivedAtCancel.compareExchange(expected: -1, desired: seen, ordering: .relaxed)
  }
}

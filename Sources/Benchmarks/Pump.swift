import Conduit

/// A minimal custom publisher, written against Combine's API only: it sends `n` values and
/// finishes on the first request. The source of the setup scenarios that build a pipeline, deliver
/// one value and cancel, so that what they measure is the operators' setup, not the source's.
struct Pump: Publisher {
  typealias Output = Int
  typealias Failure = Never

  let n: Int

  func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
    subscriber.receive(subscription: PumpSubscription(n: n, downstream: subscriber))
  }
}

/// `Pump`'s subscription: single-threaded, as the scenarios are.
final class PumpSubscription<Downstream: Subscriber>: Subscription
where Downstream.Input == Int, Downstream.Failure == Never {
  var downstream: Downstream?
  let n: Int

  init(n: Int, downstream: Downstream) {
    self.n = n
    self.downstream = downstream
  }

  func request(_ demand: Subscribers.Demand) {
    guard let downstream else { return }
    self.downstream = nil
    for value in 0..<n { _ = downstream.receive(value) }
    downstream.receive(completion: .finished)
  }

  func cancel() {
    downstream = nil
  }
}

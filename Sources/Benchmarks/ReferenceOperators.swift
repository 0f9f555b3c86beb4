import Conduit

/// Two hand-written one-to-one operators that pass every value on, the floors of the two shapes
/// an operator's subscription can take. `HandingDown` gives its subscriber upstream's own
/// subscription: one object per subscription. `OwnSubscription` gives it a subscription of its
/// own, which forwards requests and cancels to upstream's, as Combine's `removeDuplicates`,
/// `tryMap` and the other operators that end or filter the stream do: two objects, since the
/// object upstream holds (with the subscriber) must be able to go while the subscriber keeps its
/// subscription. Neither keeps any state, registers with the census or synchronizes anything, so
/// the difference between them is the price of the second object alone.
enum ReferenceOperators {
  struct HandingDown<Upstream: Publisher>: Publisher {
    typealias Output = Upstream.Output
    typealias Failure = Upstream.Failure

    let upstream: Upstream

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(Inner(downstream: subscriber))
    }

    final class Inner<Downstream: Subscriber>: Subscriber {
      typealias Input = Downstream.Input
      typealias Failure = Downstream.Failure

      let downstream: Downstream

      init(downstream: Downstream) { self.downstream = downstream }

      func receive(subscription: any Subscription) { downstream.receive(subscription: subscription) }
      func receive(_ input: Input) -> Subscribers.Demand { downstream.receive(input) }
      func receive(completion: Subscribers.Completion<Failure>) { downstream.receive(completion: completion) }
    }
  }

  struct OwnSubscription<Upstream: Publisher>: Publisher {
    typealias Output = Upstream.Output
    typealias Failure = Upstream.Failure

    let upstream: Upstream

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      upstream.subscribe(Inner(downstream: subscriber))
    }

    final class Inner<Downstream: Subscriber>: Subscriber {
      typealias Input = Downstream.Input
      typealias Failure = Downstream.Failure

      let downstream: Downstream
      let subscription = Forwarding()

      init(downstream: Downstream) { self.downstream = downstream }

      func receive(subscription upstream: any Subscription) {
        subscription.upstream = upstream
        downstream.receive(subscription: subscription)
      }
      func receive(_ input: Input) -> Subscribers.Demand { downstream.receive(input) }
      func receive(completion: Subscribers.Completion<Failure>) { downstream.receive(completion: completion) }
    }

    final class Forwarding: Subscription {
      var upstream: (any Subscription)?

      func request(_ demand: Subscribers.Demand) { upstream?.request(demand) }
      func cancel() { upstream?.cancel() }
    }
  }
}

extension Publisher {
  func handingDownReference() -> ReferenceOperators.HandingDown<Self> { .init(upstream: self) }
  func ownSubscriptionReference() -> ReferenceOperators.OwnSubscription<Self> { .init(upstream: self) }
}

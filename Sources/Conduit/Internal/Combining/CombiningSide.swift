import Synchronization

extension CombiningSubscription {
  /// The subscriber given to one upstream of a `CombiningSubscription`, of that upstream's
  /// `Input` values: forwards to the subscription with its index.
  @usableFromInline
  struct Side<Input>: Subscriber, CustomStringConvertible {
    @usableFromInline
    typealias Failure = Downstream.Failure

    @usableFromInline
    let parent: CombiningSubscription
    @usableFromInline
    let index: Int
    @usableFromInline
    let combineIdentifier = CombineIdentifier()

    @inlinable
    init(parent: CombiningSubscription, index: Int) {
      self.parent = parent
      self.index = index
    }

    @usableFromInline
    var description: String { Strategy.description }

    @usableFromInline
    func receive(subscription: any Subscription) {
      parent.receive(subscription: subscription, at: index)
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
      parent.receive(input, at: index)
    }

    @usableFromInline
    func receive(completion: Subscribers.Completion<Failure>) {
      parent.receive(completion: completion, at: index)
    }
  }
}

extension CombiningSubscription.Side: CensusTransparent {
  /// What an upstream creates on this side's behalf joins the combining subscription's pipeline.
  @usableFromInline
  var censusWrapped: Any? { parent }
}

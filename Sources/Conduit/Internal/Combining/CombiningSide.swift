import Synchronization

/// The subscriber given to one upstream of a `CombiningSubscription`: forwards to the
/// subscription with its index.
@usableFromInline
struct CombiningSide<Types: CombiningSideLink>: Subscriber, CustomStringConvertible {
  @usableFromInline
  typealias Input = Types.Input
  @usableFromInline
  typealias Failure = Types.Parent.Downstream.Failure

  @usableFromInline
  let parent: CombiningSubscription<Types.Parent>
  @usableFromInline
  let index: Int
  @usableFromInline
  let combineIdentifier = CombineIdentifier()

  @inlinable
  init(parent: CombiningSubscription<Types.Parent>, index: Int) {
    self.parent = parent
    self.index = index
  }

  @usableFromInline
  var description: String { Types.Parent.Strategy.description }

  @usableFromInline
  func receive(subscription: any Subscription) {
    parent.receive(subscription: subscription, at: index)
  }

  @inlinable
  func receive(_ input: Input) -> Subscribers.Demand {
    parent.receive(input, at: index, from: Types.self)
  }

  @usableFromInline
  func receive(completion: Subscribers.Completion<Failure>) {
    parent.receive(completion: completion, at: index)
  }
}

/// The types of one upstream's subscriber of a combining subscription: the subscription's link
/// and the values of that upstream.
@usableFromInline
protocol CombiningSideLink {
  /// The link of the subscription the side belongs to.
  associatedtype Parent: CombiningLink
  /// The kind of values the upstream sends.
  associatedtype Input
}

/// The `CombiningSideLink` of an upstream of `Input` values. Never instantiated.
@usableFromInline
enum CombiningSideTypes<Parent: CombiningLink, Input>: CombiningSideLink {}

/// Subscribes to one inner publisher on behalf of its parent subscription, and reports every
/// event to the parent under its own `id`.
///
/// A struct, so that an inner publisher costs no allocation of its own: it is stored inside the
/// inner publisher's subscription. What the inner publisher creates on its behalf, possibly on
/// another thread, takes its census scope from the parent subscription.
///
/// It describes itself as its parent does, and reflects the parent's identifier as
/// `parentSubscription`, as Combine's do.
@usableFromInline
struct ChildSubscriber<Parent: ChildSubscriberParent>: Subscriber, CustomStringConvertible, CustomReflectable,
  CustomPlaygroundDisplayConvertible, CensusTransparent
{
  @usableFromInline
  typealias Input = Parent.ChildInput
  @usableFromInline
  typealias Failure = Parent.ChildFailure

  @usableFromInline
  let parent: Parent
  @usableFromInline
  let id: Int
  @usableFromInline
  let combineIdentifier = CombineIdentifier()

  @usableFromInline
  var description: String { parent.description }
  @usableFromInline
  var customMirror: Mirror {
    Mirror(self, children: CollectionOfOne<Mirror.Child>(("parentSubscription", parent.combineIdentifier)))
  }
  @usableFromInline
  var playgroundDescription: Any { description }
  @usableFromInline
  var censusWrapped: Any? { parent }

  @inlinable
  init(parent: Parent, id: Int) {
    self.parent = parent
    self.id = id
  }

  @usableFromInline
  func receive(subscription: any Subscription) {
    parent.childSubscribed(id, subscription)
  }

  @inlinable
  func receive(_ input: Parent.ChildInput) -> Subscribers.Demand {
    parent.childReceived(id, input)
  }

  @usableFromInline
  func receive(completion: Subscribers.Completion<Parent.ChildFailure>) {
    parent.childCompleted(id, completion)
  }
}

/// The subscription that owns `ChildSubscriber`s: one operator subscription that subscribes to
/// inner publishers on the downstream's behalf (`flatMap`, `switchToLatest`).
@usableFromInline
protocol ChildSubscriberParent: AnyObject, CensusScoped, CustomStringConvertible, CustomCombineIdentifierConvertible {
  /// The kind of values the inner publishers send.
  associatedtype ChildInput
  /// The kind of errors the inner publishers send.
  associatedtype ChildFailure: Error

  /// The inner publisher of child `id` sent its subscription.
  func childSubscribed(_ id: Int, _ subscription: any Subscription)
  /// The inner publisher of child `id` sent a value; returns the demand to ask of it.
  func childReceived(_ id: Int, _ value: ChildInput) -> Subscribers.Demand
  /// The inner publisher of child `id` completed.
  func childCompleted(_ id: Int, _ completion: Subscribers.Completion<ChildFailure>)
}

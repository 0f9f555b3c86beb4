import Conduit
import Testing

/// Gives `subscriber` a first subscription, a second one, the first again, a completion and a
/// third one, then cancels it: only the first is asked for anything (`.unlimited`), every other
/// is cancelled without a request, and the cancel after the completion does not reach the first.
func expectKeepsOnlyTheFirstSubscription<S: Subscriber & Cancellable>(
  _ subscriber: S, sourceLocation: SourceLocation = #_sourceLocation
) where S.Input == Int, S.Failure == Never {
  let first = SpySubscription()
  subscriber.receive(subscription: first)
  #expect(first.events == [.requested(.unlimited)], sourceLocation: sourceLocation)

  let second = SpySubscription()
  subscriber.receive(subscription: second)
  #expect(second.events == [.cancelled], sourceLocation: sourceLocation)
  #expect(first.events == [.requested(.unlimited)], sourceLocation: sourceLocation)

  subscriber.receive(subscription: first)
  #expect(first.events == [.requested(.unlimited), .cancelled], sourceLocation: sourceLocation)

  subscriber.receive(completion: .finished)
  let third = SpySubscription()
  subscriber.receive(subscription: third)
  #expect(third.events == [.cancelled], sourceLocation: sourceLocation)
  subscriber.cancel()
  #expect(first.events == [.requested(.unlimited), .cancelled], sourceLocation: sourceLocation)
}

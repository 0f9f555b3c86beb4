import Conduit
import ConduitTesting

/// The description of the subscription `publisher` hands its subscriber.
func subscriptionName<P: Publisher>(_ publisher: P) -> String? {
  let subscriber = TestSubscriber<P.Output, P.Failure>(initialDemand: .none)
  publisher.subscribe(subscriber)
  defer { subscriber.cancel() }
  return subscriber.subscription.map { "\($0)" }
}

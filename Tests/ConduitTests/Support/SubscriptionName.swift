import Conduit

/// The description of the subscription `publisher` hands its subscriber.
func subscriptionName<P: Publisher>(_ publisher: P) -> String? {
  let subscriber = RecordingSubscriber<P.Output, P.Failure>(initialDemand: .none)
  publisher.subscribe(subscriber)
  defer { subscriber.subscription?.cancel() }
  return subscriber.subscription.map { "\($0)" }
}

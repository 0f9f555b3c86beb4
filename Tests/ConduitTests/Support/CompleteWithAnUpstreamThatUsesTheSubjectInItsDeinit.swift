import Conduit
import ConduitTesting

/// Gives `subject` an upstream subscription that nothing else holds and whose `deinit` completes
/// the subject again, sends 1, then completes the subject, which lets go of its upstream
/// subscriptions. Returns whether the `deinit` ran, and a subscriber that was subscribed
/// throughout. The subscription used to be let go of under the subject's lock, and the `deinit`
/// stopped the process on the lock taken twice.
func completeWithAnUpstreamThatUsesTheSubjectInItsDeinit<S: Subject>(
  _ subject: S
) -> (completedInDeinit: Bool, subscriber: TestSubscriber<Int, Never>) where S.Output == Int, S.Failure == Never {
  let subscriber = TestSubscriber<Int, Never>()
  subject.subscribe(subscriber)
  var completedInDeinit = false
  subject.send(
    subscription: DeinitSubscription {
      subject.send(completion: .finished)
      completedInDeinit = true
    })
  subject.send(1)
  subject.send(completion: .finished)
  return (completedInDeinit, subscriber)
}

import Conduit
import ConduitTesting

/// A `TestSubscriber` that a test awaits, without sleeping, until it has received some values
/// or its completion: for publishers that deliver from a task of their own.
final class AwaitingSubscriber<Input, Failure: Error>: Subscriber, Cancellable, @unchecked Sendable {
  /// Records what arrives and checks the contract.
  let recorder: TestSubscriber<Input, Failure>
  private let valueCount = AwaitableCount()
  private let completionCount = AwaitableCount()

  /// Creates a subscriber that requests `initialDemand` on subscription and returns
  /// `demandPerValue` from each value, as `TestSubscriber` does.
  init(initialDemand: Subscribers.Demand = .unlimited, demandPerValue: Subscribers.Demand = .none) {
    recorder = TestSubscriber(initialDemand: initialDemand, demandPerValue: demandPerValue)
  }

  var values: [Input] { recorder.values }
  var completion: Subscribers.Completion<Failure>? { recorder.completion }
  var violations: [String] { recorder.violations }

  /// Runs `action` inside `receive(_:)`; see `TestSubscriber.onValue(_:)`.
  func onValue(_ action: @escaping (Input) -> Void) { recorder.onValue(action) }

  func request(_ demand: Subscribers.Demand) { recorder.request(demand) }

  func cancel() { recorder.cancel() }

  /// Returns once `count` values have arrived in all.
  func values(count: Int) async { await valueCount.reach(count) }

  /// Returns the completion once it has arrived.
  func completed() async -> Subscribers.Completion<Failure> {
    await completionCount.reach(1)
    return recorder.completion!
  }

  func receive(subscription: any Subscription) { recorder.receive(subscription: subscription) }

  func receive(_ input: Input) -> Subscribers.Demand {
    defer { valueCount.increment() }
    return recorder.receive(input)
  }

  func receive(completion: Subscribers.Completion<Failure>) {
    recorder.receive(completion: completion)
    completionCount.increment()
  }
}

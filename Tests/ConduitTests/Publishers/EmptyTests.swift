import Conduit
import ConduitTesting
import Testing

private enum EmptyTestError: Error, Equatable {
  case failed
}

@Suite(.leakChecked)
struct EmptyTests {
  @Test func completesImmediatelyByDefault() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    Empty<Int, Never>().subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .completion(.finished)])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func completesImmediatelyWhenAsked() {
    let subscriber = TestSubscriber<Int, EmptyTestError>()
    Empty<Int, EmptyTestError>(completeImmediately: true).subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .completion(.finished)])
  }

  @Test func neverCompletesWhenNotCompletingImmediately() {
    let subscriber = TestSubscriber<Int, Never>()
    Empty<Int, Never>(completeImmediately: false).subscribe(subscriber)
    #expect(subscriber.events == [.subscription])
    subscriber.request(.max(10))
    #expect(subscriber.events == [.subscription])
    subscriber.cancel()
    #expect(subscriber.events == [.subscription])
  }

  @Test func typedInitializer() {
    let empty = Empty(completeImmediately: false, outputType: String.self, failureType: EmptyTestError.self)
    #expect(empty.completeImmediately == false)
    let subscriber = TestSubscriber<String, EmptyTestError>()
    empty.subscribe(subscriber)
    #expect(subscriber.events == [.subscription])

    let completing = Empty(outputType: String.self, failureType: Never.self)
    #expect(completing.completeImmediately)
    let other = TestSubscriber<String, Never>()
    completing.subscribe(other)
    #expect(other.completion == .finished)
  }

  @Test func subscriptionIsTheEmptySubscription() {
    let subscriber = TestSubscriber<Int, Never>()
    Empty<Int, Never>(completeImmediately: false).subscribe(subscriber)
    #expect(subscriber.subscription?.combineIdentifier == Subscriptions.empty.combineIdentifier)
  }

  @Test func equatableByCompletionBehaviour() {
    #expect(Empty<Int, Never>() == Empty<Int, Never>(completeImmediately: true))
    #expect(Empty<Int, Never>() != Empty<Int, Never>(completeImmediately: false))
  }

  @Test func sinkGetsOnlyTheCompletion() {
    var values: [Int] = []
    var completion: Subscribers.Completion<Never>?
    let token = Empty<Int, Never>().sink(receiveCompletion: { completion = $0 }, receiveValue: { values.append($0) })
    #expect(values.isEmpty)
    #expect(completion == .finished)
    token.cancel()
  }

  @Test(arguments: [true, false])
  func holdsNoReferenceToTheSubscriber(completeImmediately: Bool) {
    weak var weakProbe: CapturedProbe?
    do {
      let probe = CapturedProbe()
      weakProbe = probe
      Empty<Int, Never>(completeImmediately: completeImmediately).subscribe(
        AnySubscriber(
          receiveSubscription: { $0.request(.unlimited) },
          receiveValue: { _ in
            _ = probe
            return .none
          }))
    }
    #expect(weakProbe == nil)
  }
}

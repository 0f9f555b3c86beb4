import Conduit
import ConduitTesting
import Testing

private enum FailTestError: Error, Equatable {
  case failed
  case other
}

@Suite(.leakChecked)
struct FailTests {
  @Test func failsImmediatelyWithoutDemand() {
    let subscriber = TestSubscriber<Int, FailTestError>(initialDemand: .none)
    Fail<Int, FailTestError>(error: .failed).subscribe(subscriber)
    #expect(subscriber.events == [.subscription, .completion(.failure(.failed))])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func typedInitializer() {
    let fail = Fail(outputType: String.self, failure: FailTestError.other)
    #expect(fail.error == .other)
    let subscriber = TestSubscriber<String, FailTestError>()
    fail.subscribe(subscriber)
    #expect(subscriber.values.isEmpty)
    #expect(subscriber.completion == .failure(.other))
  }

  @Test func everySubscriberFails() {
    let fail = Fail<Int, FailTestError>(error: .failed)
    let first = TestSubscriber<Int, FailTestError>()
    let second = TestSubscriber<Int, FailTestError>()
    fail.subscribe(first)
    fail.subscribe(second)
    #expect(first.completion == .failure(.failed))
    #expect(second.completion == .failure(.failed))
  }

  @Test func sinkGetsTheFailure() {
    var values: [Int] = []
    var completion: Subscribers.Completion<FailTestError>?
    let token = Fail<Int, FailTestError>(error: .failed)
      .sink(receiveCompletion: { completion = $0 }, receiveValue: { values.append($0) })
    #expect(values.isEmpty)
    #expect(completion == .failure(.failed))
    token.cancel()
  }

  @Test func equatableByError() {
    #expect(Fail<Int, FailTestError>(error: .failed) == Fail<Int, FailTestError>(error: .failed))
    #expect(Fail<Int, FailTestError>(error: .failed) != Fail<Int, FailTestError>(error: .other))
  }

  @Test func holdsNoReferenceToTheSubscriber() {
    weak var weakProbe: CapturedProbe?
    var completion: Subscribers.Completion<FailTestError>?
    do {
      let probe = CapturedProbe()
      weakProbe = probe
      Fail<Int, FailTestError>(error: .failed).subscribe(
        AnySubscriber(
          receiveCompletion: {
            _ = probe
            completion = $0
          }))
    }
    #expect(completion == .failure(.failed))
    #expect(weakProbe == nil)
  }

  @Test func sinkReleasesItsClosuresAfterFailure() {
    weak var weakProbe: CapturedProbe?
    var token: AnyCancellable?
    do {
      let probe = CapturedProbe()
      weakProbe = probe
      token = Fail<Int, FailTestError>(error: .failed).sink(
        receiveCompletion: { _ in _ = probe }, receiveValue: { _ in })
    }
    #expect(token != nil)
    #expect(weakProbe == nil)
    token = nil
  }
}

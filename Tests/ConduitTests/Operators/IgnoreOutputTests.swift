import Conduit
import ConduitTesting
import Testing

@Suite(.leakChecked)
struct IgnoreOutputTests {
  @Test func dropsEveryValueAndFinishesWithoutDemand() {
    let upstream = ReducingUpstream<Int, Never>()
    let ignore: Publishers.IgnoreOutput<ReducingUpstream<Int, Never>> = upstream.ignoreOutput()
    let subscriber = TestSubscriber<Never, Never>(initialDemand: .none)
    ignore.subscribe(subscriber)
    #expect(upstream.requests == [.unlimited])

    #expect(upstream.send(1) == .none)
    #expect(upstream.send(2) == .none)
    upstream.send(completion: .finished)

    #expect(subscriber.events.count == 2)
    #expect(subscriber.completion == .finished)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func aFailurePassesThroughWithoutDemand() {
    let subject = PassthroughSubject<String, ReducingError>()
    let subscriber = TestSubscriber<Never, ReducingError>(initialDemand: .none)
    subject.ignoreOutput().subscribe(subscriber)

    subject.send("a")
    subject.send(completion: .failure(.upstream))

    #expect(subscriber.completion == .failure(.upstream))
    #expect(subscriber.events.count == 2)
  }

  @Test func cancelCancelsUpstreamAndSilences() {
    let upstream = ReducingUpstream<Int, Never>()
    let subscriber = TestSubscriber<Never, Never>()
    upstream.ignoreOutput().subscribe(subscriber)

    subscriber.cancel()
    upstream.send(completion: .finished)

    #expect(upstream.cancelCount == 1)
    #expect(subscriber.completion == nil)
  }

  @Test func worksWithASink() {
    let subject = PassthroughSubject<Int, Never>()
    var finished = false
    let token = subject.ignoreOutput().sink(receiveCompletion: { _ in finished = true }, receiveValue: { _ in })

    subject.send(1)
    #expect(!finished)
    subject.send(completion: .finished)

    #expect(finished)
    token.cancel()
  }

  @Test func isEquatableWhenItsUpstreamIs() {
    #expect(Publishers.IgnoreOutput(upstream: Just(1)) == Publishers.IgnoreOutput(upstream: Just(1)))
    #expect(Publishers.IgnoreOutput(upstream: Just(1)) != Publishers.IgnoreOutput(upstream: Just(2)))
  }
}

import ConduitTesting
import Testing

@testable import Conduit

/// `values(bufferingPolicy:)`: it subscribes when called, so an actor can make it in a method and
/// iterate it in a task without losing what is sent in between.
@Suite(.leakChecked(timeout: .seconds(3)))
struct AsyncBufferedPublisherTests {
  @Test func itSubscribesWhenCalledAndKeepsWhatIsSentBeforeTheIteratorIsMade() async {
    let subject = PassthroughSubject<Int, Never>()
    let values = subject.values(bufferingPolicy: .unbounded)
    for value in 1...100 { subject.send(value) }
    subject.send(completion: .finished)
    var received: [Int] = []
    for await value in values { received.append(value) }
    #expect(received == Array(1...100))
  }

  @Test func anActorsLoopStartedInAMethodReceivesWhatIsSentRightAfterTheMethodReturns() async {
    let subject = PassthroughSubject<Int, Never>()
    let counter = ValuesConsumingActor()
    await counter.start(subject)
    for value in 1...100 { subject.send(value) }
    subject.send(completion: .finished)
    #expect(await counter.finished() == Array(1...100))
  }

  @Test func releasingTheSequenceUniteratedCancelsItsSubscription() {
    let upstream = HandDrivenUpstream<Int, Never>()
    do {
      let values = upstream.values(bufferingPolicy: .unbounded)
      let copy = values
      _ = copy
      #expect(upstream.requests == [.unlimited])
      #expect(!upstream.isCancelled)
    }
    #expect(upstream.isCancelled)
  }

  @Test func theFirstIteratorTakesTheSubscriptionOverAndALaterOneSubscribesAnew() async {
    let subscriptions = Locked(0)
    let source = Deferred {
      subscriptions.withLock { $0 += 1 }
      return Just(7)
    }
    let values = source.values(bufferingPolicy: .unbounded)
    #expect(subscriptions.withLock { $0 } == 1)
    var first = values.makeAsyncIterator()
    #expect(subscriptions.withLock { $0 } == 1)
    var second = values.makeAsyncIterator()
    #expect(subscriptions.withLock { $0 } == 2)
    #expect(await first.next() == 7)
    #expect(await first.next() == nil)
    #expect(await second.next() == 7)
    #expect(await second.next() == nil)
  }

  @Test func theFailureIsThrownTypedAfterTheValuesKeptBeforeIt() async {
    let subject = PassthroughSubject<Int, Oops>()
    var iterator = subject.values(bufferingPolicy: .unbounded).makeAsyncIterator()
    subject.send(1)
    subject.send(completion: .failure(Oops()))
    var received: [Int] = []
    do throws(Oops) {
      while let value = try await iterator.next() { received.append(value) }
      Issue.record("the loop ended without the failure")
    } catch {
      #expect(error == Oops())
    }
    #expect(received == [1])
  }

  @Test func itIsSendableWhenItsElementsAre() async {
    let subject = PassthroughSubject<Int, Never>()
    let values: any Sendable = subject.values(bufferingPolicy: .bufferingNewest(1))
    let task = Task.detached { () -> Int? in
      var iterator = (values as! AsyncBufferedPublisher<Int, Never>).makeAsyncIterator()
      return await iterator.next()
    }
    subject.send(5)
    subject.send(completion: .finished)
    #expect(await task.value == 5)
  }
}

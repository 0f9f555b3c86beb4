import Conduit
import ConduitTesting
import Testing

@Suite(.leakChecked)
struct SinkTests {
  @Test func sinkWithValueClosureReceivesEveryValue() {
    let log = Log<Int, Never>()

    let token = [1, 2, 3].publisher.sink { log.values.append($0) }

    #expect(log.values == [1, 2, 3])
    token.cancel()
  }

  @Test func sinkWithBothClosuresReceivesValuesThenCompletion() {
    let log = Log<Int, Oops>()
    let subject = PassthroughSubject<Int, Oops>()
    let token = subject.sink(
      receiveCompletion: { log.completions.append($0) }, receiveValue: { log.values.append($0) })

    subject.send(1)
    subject.send(2)
    subject.send(completion: .failure(Oops()))
    subject.send(3)

    #expect(log.values == [1, 2])
    #expect(log.completions == [.failure(Oops())])
    token.cancel()
  }

  @Test func sinkReceivesFinishedOnce() {
    let log = Log<Int, Never>()
    let token = Just(7).sink(
      receiveCompletion: { log.completions.append($0) }, receiveValue: { log.values.append($0) })

    #expect(log.values == [7])
    #expect(log.completions == [.finished])
    token.cancel()
  }

  @Test func discardedCancellableCancelsAtOnce() {
    let log = Log<Int, Never>()
    let subject = PassthroughSubject<Int, Never>()

    _ = subject.sink { log.values.append($0) }
    subject.send(1)

    #expect(log.values.isEmpty)
  }

  @Test func storedCancellableKeepsTheSinkAlive() {
    let log = Log<Int, Never>()
    let subject = PassthroughSubject<Int, Never>()
    var tokens = Set<AnyCancellable>()

    subject.sink { log.values.append($0) }.store(in: &tokens)
    subject.send(1)
    tokens.removeAll()
    subject.send(2)

    #expect(log.values == [1])
  }

  @Test func cancelStopsValuesAndIsIdempotent() {
    let log = Log<Int, Never>()
    let subject = PassthroughSubject<Int, Never>()
    let token = subject.sink(
      receiveCompletion: { log.completions.append($0) }, receiveValue: { log.values.append($0) })

    subject.send(1)
    token.cancel()
    token.cancel()
    subject.send(2)
    subject.send(completion: .finished)

    #expect(log.values == [1])
    #expect(log.completions.isEmpty)
  }

  @Test func releasesCapturedObjectsOnCompletion() {
    let subject = PassthroughSubject<Int, Never>()
    weak var weakCaptured: Captured?
    let token: AnyCancellable
    do {
      let captured = Captured()
      weakCaptured = captured
      token = subject.sink(receiveCompletion: { _ in captured.touch() }, receiveValue: { _ in captured.touch() })
    }
    subject.send(1)
    #expect(weakCaptured?.touches == 1)

    subject.send(completion: .finished)

    #expect(weakCaptured == nil)
    withExtendedLifetime(token) {}
  }

  @Test func releasesCapturedObjectsOnFailure() {
    let subject = PassthroughSubject<Int, Oops>()
    weak var weakCaptured: Captured?
    let token: AnyCancellable
    do {
      let captured = Captured()
      weakCaptured = captured
      token = subject.sink(receiveCompletion: { _ in captured.touch() }, receiveValue: { _ in captured.touch() })
    }

    subject.send(completion: .failure(Oops()))

    #expect(weakCaptured == nil)
    withExtendedLifetime(token) {}
  }

  @Test func releasesCapturedObjectsWhenItsTokenIsCancelled() {
    let subject = PassthroughSubject<Int, Never>()
    weak var weakCaptured: Captured?
    let token: AnyCancellable
    do {
      let captured = Captured()
      weakCaptured = captured
      token = subject.sink { _ in captured.touch() }
    }
    #expect(weakCaptured != nil)

    token.cancel()

    #expect(weakCaptured == nil)
  }

  @Test func requestsUnlimitedAndCancelsUpstreamOnCancel() {
    let subscription = SpySubscription()
    let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })

    sink.receive(subscription: subscription)
    #expect(subscription.requests == [.unlimited])

    sink.cancel()
    sink.cancel()
    #expect(subscription.cancelCount == 1)
  }

  @Test func cancelsASecondSubscription() {
    let first = SpySubscription()
    let second = SpySubscription()
    let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })

    sink.receive(subscription: first)
    sink.receive(subscription: second)

    #expect(first.requests == [.unlimited])
    #expect(first.cancelCount == 0)
    #expect(second.requests.isEmpty)
    #expect(second.cancelCount == 1)
    sink.cancel()
  }

  @Test func cancelsASubscriptionArrivingAfterCompletion() {
    let subscription = SpySubscription()
    let log = Log<Int, Never>()
    let sink = Subscribers.Sink<Int, Never>(
      receiveCompletion: { log.completions.append($0) }, receiveValue: { log.values.append($0) })

    sink.receive(completion: .finished)
    sink.receive(subscription: subscription)
    sink.receive(completion: .finished)

    #expect(subscription.cancelCount == 1)
    #expect(log.completions == [.finished])
  }

  @Test func cancelledBeforeSubscribingCancelsTheSubscription() {
    let subscription = SpySubscription()
    let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })

    sink.cancel()
    sink.receive(subscription: subscription)

    #expect(subscription.requests.isEmpty)
    #expect(subscription.cancelCount == 1)
  }

  // MARK: The closures, held without a reference count per value

  @Test func closuresAreThoseGivenUntilTheCompletionAndDoNothingAfter() {
    let log = Log<Int, Never>()
    let sink = Subscribers.Sink<Int, Never>(
      receiveCompletion: { log.completions.append($0) }, receiveValue: { log.values.append($0) })
    sink.receive(subscription: SpySubscription())

    sink.receiveValue(1)
    sink.receiveCompletion(.finished)
    #expect(log.values == [1])
    #expect(log.completions == [.finished])

    sink.receive(completion: .finished)
    sink.receiveValue(2)
    sink.receiveCompletion(.finished)
    #expect(log.values == [1])
    #expect(log.completions == [.finished, .finished])
  }

  @Test func valuesAfterTheCompletionReachNothing() {
    let log = Log<Int, Never>()
    let sink = Subscribers.Sink<Int, Never>(
      receiveCompletion: { log.completions.append($0) }, receiveValue: { log.values.append($0) })
    sink.receive(subscription: SpySubscription())

    #expect(sink.receive(1) == .none)
    sink.receive(completion: .finished)
    // An upstream that breaks the contract.
    #expect(sink.receive(2) == .none)

    #expect(log.values == [1])
    #expect(log.completions == [.finished])
  }

  @Test func completionFromInsideReceiveReleasesTheClosuresOnlyAfterItReturns() {
    weak var weakCaptured: Captured?
    var sink: Subscribers.Sink<Int, Never>?
    var aliveAfterTheCompletion = false
    do {
      let captured = Captured()
      weakCaptured = captured
      sink = Subscribers.Sink<Int, Never>(
        receiveCompletion: { _ in captured.touch() },
        receiveValue: { _ in
          // An upstream that breaks the contract completes while the value is delivered; what
          // the running closure captured must stay alive until it returns.
          sink?.receive(completion: .finished)
          aliveAfterTheCompletion = weakCaptured != nil
          captured.touch()
        })
    }
    sink?.receive(subscription: SpySubscription())

    _ = sink?.receive(1)

    #expect(aliveAfterTheCompletion)
    #expect(weakCaptured == nil)
    _ = sink?.receive(2)
    sink = nil
  }

  @Test func completionFromInsideANestedReceiveWaitsForTheOutermostToReturn() {
    weak var weakCaptured: Captured?
    var sink: Subscribers.Sink<Int, Never>?
    var aliveAfterTheInnerValue = false
    do {
      let captured = Captured()
      weakCaptured = captured
      sink = Subscribers.Sink<Int, Never>(
        receiveCompletion: { _ in },
        receiveValue: { value in
          // An upstream that breaks the contract twice: it re-enters with a value, and completes
          // from inside that.
          if value == 1 {
            _ = sink?.receive(2)
            aliveAfterTheInnerValue = weakCaptured != nil
          } else {
            sink?.receive(completion: .finished)
          }
          captured.touch()
        })
    }
    sink?.receive(subscription: SpySubscription())

    _ = sink?.receive(1)

    #expect(aliveAfterTheInnerValue)
    #expect(weakCaptured == nil)
    sink = nil
  }

  /// The upstream subscription is let go of after the sink's lock at completion: one whose
  /// `deinit` cancels the sink (through a token, say) stopped the process on the lock taken
  /// twice.
  @Test func upstreamSubscriptionMayCancelTheSinkInItsDeinit() {
    var completions = 0
    let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in completions += 1 }, receiveValue: { _ in })
    var cancelledInDeinit = false
    sink.receive(
      subscription: DeinitSubscription {
        sink.cancel()
        cancelledInDeinit = true
      })
    sink.receive(completion: .finished)
    #expect(cancelledInDeinit)
    #expect(completions == 1)
  }

  @Test func reflectsAsCombinesSink() {
    let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
    #expect(sink.playgroundDescription as? String == "Sink")
    #expect(sink.customMirror.children.isEmpty)
    #expect(ObjectIdentifier(sink.customMirror.subjectType) == ObjectIdentifier(Subscribers.Sink<Int, Never>.self))
  }

  /// A sink asks its first subscription for `.unlimited`; a second, and the first one given
  /// again, are cancelled; after the completion a new subscription is cancelled without a
  /// request, and cancelling the sink no longer reaches the first.
  /// Evidence (OpenCombine): SinkTests.swift `testSubscription`.
  @Test func sinkCancelsEverySubscriptionButTheFirst() {
    expectKeepsOnlyTheFirstSubscription(
      Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in }))
  }

  /// A sink passes on a value and a completion that come before any subscription; after the
  /// completion it passes on nothing, and `receive(_:)` answers `.none`.
  /// Evidence (OpenCombine): SinkTests.swift `testReceiveValueWithoutSubscription` and `testReceiveValue`
  /// (`sink.receive(12) == .none` and the value reaches the closure).
  @Test func sinkPassesOnWhatComesBeforeASubscription() {
    var values: [Int] = []
    var completions: [Subscribers.Completion<ParityFailure>] = []
    let sink = Subscribers.Sink<Int, ParityFailure>(
      receiveCompletion: { completions.append($0) }, receiveValue: { values.append($0) })

    #expect(sink.receive(12) == .none)
    #expect(values == [12])
    sink.receive(completion: .finished)
    #expect(sink.receive(13) == .none)
    sink.receive(completion: .finished)
    sink.receive(completion: .failure(.oops))
    sink.cancel()
    #expect(values == [12])
    #expect(completions == [.finished])
  }

  /// A sink that has completed and is subscribed again cancels the new subscription, so it gets
  /// no more values.
  /// Evidence (OpenCombine): SinkTests.swift `testReceiveValue` (after the completion, `publisher.subscribe(sink)`
  /// and `send(1000000)` leave the value at 42).
  @Test func completedSinkSubscribedAgainGetsNothing() {
    var values: [Int] = []
    let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { values.append($0) })
    let subject = PassthroughSubject<Int, Never>()
    subject.subscribe(sink)
    subject.send(42)
    subject.send(completion: .finished)

    let again = PassthroughSubject<Int, Never>()
    again.subscribe(sink)
    again.send(1_000_000)
    #expect(values == [42])
    again.send(completion: .finished)
  }

  /// A completion that reaches the sink from inside its own completion closure is dropped.
  /// Evidence (OpenCombine): SinkTests.swift `testRecursiveCompletion` (the closure runs once:
  /// `recursionCounter == 9`).
  @Test func completionFromInsideTheSinksCompletionIsDropped() {
    var calls = 0
    var again: Subscribers.Sink<Int, Never>?
    let sink = Subscribers.Sink<Int, Never>(
      receiveCompletion: {
        calls += 1
        if calls < 10 { again?.receive(completion: $0) }
      }, receiveValue: { _ in })
    again = sink
    sink.receive(subscription: SpySubscription())
    sink.receive(completion: .finished)
    #expect(calls == 1)
    again = nil
  }

  /// A sink cancelled before it has a subscription keeps its closures.
  /// Evidence (OpenCombine): SinkTests.swift `testDoesNotReleaseClosuresAfterCancellationNoSubscription`.
  @Test func sinkCancelledWithoutASubscriptionKeepsItsClosures() {
    let (sink, capturedIsAlive) = sinkCapturingAnObject()
    sink.cancel()
    withExtendedLifetime(sink) { #expect(capturedIsAlive()) }
  }

  /// Sink and Assign describe themselves as Combine's do.
  /// Evidence (OpenCombine): SinkTests.swift `testDescription` ("Sink"); AssignTests.swift `testDescription`
  /// ("Assign TestObject.").
  @Test func sinkAndAssignDescriptions() {
    let sink = Subscribers.Sink<Int, Never>(receiveCompletion: { _ in }, receiveValue: { _ in })
    #expect(sink.description == "Sink")
    let assign = Subscribers.Assign(object: Target(), keyPath: \Target.value)
    #expect(assign.description == "Assign Target.")
  }
}

/// What a sink's closures received.
private final class Log<Value, Failure: Error> {
  var values: [Value] = []
  var completions: [Subscribers.Completion<Failure>] = []
}

import Conduit
import ConduitSchedulers
import ConduitTesting
import Dispatch
import Testing

/// The public types that hold or carry values are `Sendable` when those values are: each test
/// proves at compile time that such a type with `Int` values is `Sendable` (`requireSendable`
/// does not compile otherwise), then that an instance still works once it has crossed into a
/// task. That the same types with values of a non-`Sendable` class are not `Sendable` can only be
/// shown by code that fails to compile, so it is checked apart from this suite.
@Suite(.leakChecked)
struct SendableConformanceTests {
  @Test func aPassthroughSubjectOfSendableValuesIsSendable() async {
    requireSendable(PassthroughSubject<Int, Never>.self)
    let subject = PassthroughSubject<Int, Never>()
    let recorder = subject.record()
    await Task.detached { subject.send(1) }.value
    #expect(recorder.values == [1])
    recorder.cancel()
  }

  @Test func aCurrentValueSubjectOfSendableValuesIsSendable() async {
    requireSendable(CurrentValueSubject<Int, Never>.self)
    let subject = CurrentValueSubject<Int, Never>(0)
    let recorder = subject.record()
    await Task.detached { subject.value = 1 }.value
    #expect(subject.value == 1)
    #expect(recorder.values == [0, 1])
    recorder.cancel()
  }

  @Test func aFutureOfASendableValueIsSendable() async {
    requireSendable(Future<Int, Never>.self)
    let future = Future<Int, Never> { promise in promise(.success(42)) }
    #expect(await Task.detached { await future.value }.value == 42)
  }

  @Test func anErasedPublisherOfSendableValuesIsSendable() async {
    requireSendable(AnyPublisher<Int, Never>.self)
    let publisher = Just(1).eraseToAnyPublisher()
    let recorder = await Task.detached { publisher.record() }.value
    #expect(recorder.values == [1])
  }

  @Test func aShareOfASendableUpstreamOfSendableValuesIsSendable() async {
    requireSendable(Publishers.Share<PassthroughSubject<Int, Never>>.self)
    let subject = PassthroughSubject<Int, Never>()
    let shared = subject.share()
    let recorder = await Task.detached { shared.record() }.value
    subject.send(1)
    #expect(recorder.values == [1])
    recorder.cancel()
  }

  @Test func aShareReplayOfASendableUpstreamOfSendableValuesIsSendable() async {
    requireSendable(Publishers.ShareReplay<PassthroughSubject<Int, Never>>.self)
    let subject = PassthroughSubject<Int, Never>()
    let shared = subject.share(replay: 1)
    let first = shared.record()
    subject.send(1)
    let late = await Task.detached { shared.record() }.value
    #expect(first.values == [1])
    #expect(late.values == [1])
    first.cancel()
    late.cancel()
  }

  @Test func aMulticastWithASendableUpstreamAndSubjectIsSendable() async {
    requireSendable(Publishers.Multicast<PassthroughSubject<Int, Never>, PassthroughSubject<Int, Never>>.self)
    let subject = PassthroughSubject<Int, Never>()
    let multicast = subject.multicast(subject: PassthroughSubject())
    let recorder = await Task.detached { multicast.record() }.value
    let connection = multicast.connect()
    subject.send(1)
    #expect(recorder.values == [1])
    recorder.cancel()
    connection.cancel()
  }

  @Test func anAutoconnectOfASendableConnectableOfSendableValuesIsSendable() async {
    requireSendable(
      Publishers.Autoconnect<Publishers.Multicast<PassthroughSubject<Int, Never>, PassthroughSubject<Int, Never>>>.self)
    let subject = PassthroughSubject<Int, Never>()
    let autoconnect = subject.multicast(subject: PassthroughSubject()).autoconnect()
    let recorder = await Task.detached { autoconnect.record() }.value
    subject.send(1)
    #expect(recorder.values == [1])
    recorder.cancel()
  }

  @Test func aTestSubscriberOfSendableValuesIsSendable() async throws {
    requireSendable(TestSubscriber<Int, Never>.self)
    requireSendable(TestSubscriber<Int, Never>.Event.self)
    let subject = PassthroughSubject<Int, Never>()
    let recorder = subject.record()
    let waiting = Task.detached { try await recorder.next(1) }
    subject.send(1)
    #expect(try await waiting.value == [1])
    #expect(recorder.events == [.subscription, .value(1)])
    recorder.cancel()
  }

  @Test func aTestSchedulerOfSendableTimesIsSendable() async {
    requireSendable(TestSchedulerOf<DispatchQueue>.self)
    let scheduler = DispatchQueue.test
    let recorder = TestSubscriber<Int, Never>()
    await Task.detached { Just(1).delay(for: .seconds(1), scheduler: scheduler).subscribe(recorder) }.value
    await scheduler.advance(by: .seconds(1))
    #expect(recorder.values == [1])
  }

  @Test func anImmediateTestSchedulerOfSendableTimesIsSendable() async {
    requireSendable(ImmediateTestSchedulerOf<DispatchQueue>.self)
    let scheduler = DispatchQueue.immediate
    let recorder = TestSubscriber<Int, Never>()
    await Task.detached { Just(1).delay(for: .seconds(1), scheduler: scheduler).subscribe(recorder) }.value
    #expect(recorder.values == [1])
    #expect(recorder.completion == .finished)
  }

  @Test func anUnimplementedSchedulerOfSendableTimesIsSendable() async {
    requireSendable(UnimplementedSchedulerOf<DispatchQueue>.self)
    let scheduler = DispatchQueue.unimplemented
    let start = scheduler.now
    #expect(await Task.detached { scheduler.now }.value == start)
  }

  @Test func anErasedSchedulerOfSendableTimesAndOptionsIsSendable() async {
    requireSendable(AnySchedulerOf<DispatchQueue>.self)
    let test = DispatchQueue.test
    let scheduler = test.eraseToAnyScheduler()
    let recorder = TestSubscriber<Int, Never>()
    await Task.detached { Just(1).delay(for: .seconds(1), scheduler: scheduler).subscribe(recorder) }.value
    await test.advance(by: .seconds(1))
    #expect(recorder.values == [1])
  }

  @Test func aTimerOnASendableSchedulerIsSendable() async {
    requireSendable(Publishers.Timer<TestSchedulerOf<DispatchQueue>>.self)
    let scheduler = DispatchQueue.test
    let start = scheduler.now
    let timer = scheduler.timerPublisher(every: .seconds(1))
    let recorder = await Task.detached { timer.record() }.value
    let connection = timer.connect()
    await scheduler.advance(by: .seconds(2))
    #expect(recorder.values == [start.advanced(by: .seconds(1)), start.advanced(by: .seconds(2))])
    recorder.cancel()
    connection.cancel()
  }
}

/// Compiles only for a `Sendable` type.
private func requireSendable<T: Sendable>(_: T.Type) {}

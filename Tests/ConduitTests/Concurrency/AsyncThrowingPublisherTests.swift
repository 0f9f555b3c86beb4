import ConduitTesting
import Testing

@testable import Conduit

/// `values` of a publisher that can fail: Combine's `AsyncThrowingPublisher`, with the failure
/// typed.
@Suite(.leakChecked(timeout: .seconds(3)))
struct AsyncThrowingPublisherTests {
  private enum Failure: Error, Equatable {
    case lost
  }

  @Test func valuesThenTheFailureThrownWithItsOwnType() async throws {
    let subject = PassthroughSubject<Int, Failure>()
    var iterator = subject.values(bufferingPolicy: .unbounded).makeAsyncIterator()
    subject.send(1)
    subject.send(completion: .failure(.lost))
    var received: [Int] = []
    var caught: Failure?
    do {
      while let value = try await iterator.next() { received.append(value) }
    } catch {
      caught = error
    }
    #expect(received == [1])
    #expect(caught == .lost)
    #expect(try await iterator.next() == nil)
  }

  @Test func aFinishedPublisherEndsTheLoop() async throws {
    var received: [Int] = []
    for try await value in [1, 2].publisher.setFailureType(to: Failure.self).values {
      received.append(value)
    }
    #expect(received == [1, 2])
  }

  @Test func theSequencesFailureTypeIsThePublishers() {
    #expect(AsyncThrowingPublisher<Fail<Int, Failure>>.Failure.self == Failure.self)
    #expect(AsyncPublisher<Just<Int>>.Failure.self == Never.self)
  }

  @Test func aFailureBeforeAnyValueIsThrownByTheFirstNext() async {
    var iterator = Fail<Int, Failure>(error: .lost).values.makeAsyncIterator()
    await #expect(throws: Failure.lost) { try await iterator.next() }
  }

  @Test func throwingOutOfTheLoopCancelsTheSubscription() async {
    let events = Locked<[String]>([])
    let source = (0..<10).publisher.setFailureType(to: Failure.self).handleEvents(
      receiveOutput: { value in events.withLock { $0.append("\(value)") } },
      receiveCancel: { events.withLock { $0.append("cancel") } })
    do {
      for try await value in source.values where value == 1 {
        throw Failure.lost
      }
    } catch {
      #expect(error as? Failure == .lost)
    }
    #expect(events.withLock { $0 } == ["0", "1", "cancel"])
  }

  @Test func cancellingTheTaskEndsTheLoopWithoutAnError() async throws {
    let source = DemandAwaitingPublisher<Int, Failure>()
    let values = UncheckedSendable(value: source.values)
    let consumer = Task {
      var received: [Int] = []
      for try await value in values.value { received.append(value) }
      return received
    }
    await source.waitForRequests(1)
    consumer.cancel()
    #expect(try await consumer.value == [])
    #expect(source.isCancelled)
  }
}

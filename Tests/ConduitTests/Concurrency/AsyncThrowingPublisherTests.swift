import ConduitTesting
import Testing

@testable import Conduit

/// `values` of a publisher that can fail: Combine's `AsyncThrowingPublisher`.
@Suite(.leakChecked(timeout: .seconds(3)))
struct AsyncThrowingPublisherTests {
  private enum Failure: Error, Equatable {
    case lost
  }

  @Test func valuesThenTheFailureThrown() async throws {
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

  @Test func theSequencesFailureTypeIsUntypedAsInCombine() {
    #expect(AsyncThrowingPublisher<Fail<Int, Failure>>.Failure.self == (any Error).self)
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

  @Test func severalTasksWaitingAtOnceEachAskForOneAndAFailureGoesToOneOfThem() async {
    let source = DemandAwaitingPublisher<Int, Failure>()
    let iterator = UncheckedSendable(value: source.values.makeAsyncIterator())
    let outcomes = await withTaskGroup(of: String.self) { group in
      for _ in 0..<3 {
        group.addTask {
          var copy = iterator.value
          do {
            return try await copy.next().map { "value \($0)" } ?? "nil"
          } catch {
            return "\(error)"
          }
        }
      }
      await source.waitForRequests(3)
      source.send(7)
      source.send(completion: .failure(.lost))
      var outcomes: [String] = []
      for await outcome in group { outcomes.append(outcome) }
      return outcomes.sorted()
    }
    #expect(outcomes == ["lost", "nil", "value 7"])
    #expect(source.requests == [.max(1), .max(1), .max(1)])
  }
}

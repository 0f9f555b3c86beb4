import Conduit
import ConduitTesting
import Synchronization
import Testing

private enum ValueTestError: Error, Equatable {
  case failed
}

/// Carries a promise to another task; the future it fulfils is thread-safe.
private struct SendablePromise<Output, Failure: Error>: @unchecked Sendable {
  let fulfil: Future<Output, Failure>.Promise
}

/// `Future.value`: tasks that await before the fulfil signal just before they await, and the test
/// awaits every signal, never the clock.
@Suite(.leakChecked(timeout: .seconds(3)))
struct FutureValueTests {
  @Test func valueOfAFulfilledNeverFailingFuture() async {
    let future = Future<Int, Never> { $0(.success(7)) }
    let value = await future.value
    #expect(value == 7)
  }

  @Test func valueOfAFulfilledThrowingFuture() async throws {
    let future = Future<Int, ValueTestError> { $0(.success(8)) }
    let value = try await future.value
    #expect(value == 8)
  }

  @Test func failureIsRethrown() async {
    let future = Future<Int, ValueTestError> { $0(.failure(.failed)) }
    await #expect(throws: ValueTestError.failed) { try await future.value }
  }

  @Test func failureIsCaughtAsAnyErrorAsInCombine() async {
    let future = Future<Int, ValueTestError> { $0(.failure(.failed)) }
    var caught: (any Error)?
    do {
      let value = try await future.value
      Issue.record("expected a failure, got \(value)")
    } catch {
      caught = error
    }
    #expect(caught as? ValueTestError == .failed)
  }

  @Test func tenTasksAwaitingBeforeFulfilAllReceiveTheValue() async {
    var promise: SendablePromise<Int, Never>?
    let future = Future<Int, Never> { promise = SendablePromise(fulfil: $0) }
    let (started, starts) = AsyncStream.makeStream(of: Void.self)
    let values = await withTaskGroup(of: Int.self) { group in
      for _ in 0..<10 {
        group.addTask {
          starts.yield()
          return await future.value
        }
      }
      var remaining = 10
      for await _ in started {
        remaining -= 1
        if remaining == 0 { break }
      }
      // Some tasks may still be between the signal and the wait: both paths must deliver.
      promise?.fulfil(.success(42))
      var values: [Int] = []
      for await value in group { values.append(value) }
      return values
    }
    #expect(values == Array(repeating: 42, count: 10))
    promise = nil
  }

  @Test func tasksAwaitingAFailingFutureAllThrow() async {
    var promise: SendablePromise<Int, ValueTestError>?
    let future = Future<Int, ValueTestError> { promise = SendablePromise(fulfil: $0) }
    let (started, starts) = AsyncStream.makeStream(of: Void.self)
    let failures = await withTaskGroup(of: Bool.self) { group in
      for _ in 0..<5 {
        group.addTask {
          starts.yield()
          do {
            _ = try await future.value
            return false
          } catch {
            return error as? ValueTestError == .failed
          }
        }
      }
      var remaining = 5
      for await _ in started {
        remaining -= 1
        if remaining == 0 { break }
      }
      promise?.fulfil(.failure(.failed))
      var failures: [Bool] = []
      for await failed in group { failures.append(failed) }
      return failures
    }
    #expect(failures == Array(repeating: true, count: 5))
    promise = nil
  }

  @Test func anAwaiterAndASubscriberWaitSideBySide() async {
    let promise = Mutex<SendablePromise<Int, Never>?>(nil)
    let future = Future<Int, Never> { fulfil in promise.withLock { $0 = SendablePromise(fulfil: fulfil) } }
    let (started, starts) = AsyncStream.makeStream(of: Void.self)
    let awaiting = Task {
      starts.yield()
      return await future.value
    }
    let subscriber = TestSubscriber<Int, Never>()
    future.subscribe(subscriber)
    for await _ in started { break }
    promise.withLock { $0?.fulfil(.success(5)) }
    #expect(await awaiting.value == 5)
    #expect(subscriber.values == [5])
    // After the fulfil, the fast path.
    #expect(await future.value == 5)
    promise.withLock { $0 = nil }
  }

  @Test func cancellingTheAwaitingTaskDoesNotCutTheWaitShort() async {
    let promise = Mutex<SendablePromise<Int, ValueTestError>?>(nil)
    let future = Future<Int, ValueTestError> { fulfil in
      promise.withLock { $0 = SendablePromise(fulfil: fulfil) }
    }
    let (started, starts) = AsyncStream.makeStream(of: Void.self)
    let task = Task {
      starts.yield()
      return try await future.value
    }
    for await _ in started { break }
    task.cancel()
    promise.withLock { $0?.fulfil(.success(3)) }
    let value = try? await task.value
    #expect(value == 3)
    promise.withLock { $0 = nil }
  }

  @Test func tenTasksAwaitingAFulfilledFutureAllReceiveTheValue() async {
    let future = Future<Int, Never> { $0(.success(9)) }
    let values = await withTaskGroup(of: Int.self) { group in
      for _ in 0..<10 { group.addTask { await future.value } }
      var values: [Int] = []
      for await value in group { values.append(value) }
      return values
    }
    #expect(values == Array(repeating: 9, count: 10))
  }

  @MainActor @Test func aMainActorCallerOfAFulfilledFutureStaysOnTheMainActor() async throws {
    let future = Future<Int, Never> { $0(.success(4)) }
    let throwing = Future<Int, ValueTestError> { $0(.success(5)) }
    var otherJobRan = false
    // Queued on the main actor behind this test: it runs before the test resumes if reading
    // `value` gives up the main actor, and not before the test's next suspension otherwise.
    let other = Task { @MainActor in otherJobRan = true }
    let value = await future.value
    let thrown = try await throwing.value
    #expect(!otherJobRan)
    #expect(value == 4)
    #expect(thrown == 5)
    await other.value
    #expect(otherJobRan)
  }
}

import Conduit
import ConduitTesting
import Dispatch
import Synchronization
import Testing

private final class CancelCounter: Sendable {
  private let count = Atomic<Int>(0)

  var value: Int { count.load(ordering: .relaxed) }

  func increment() {
    count.wrappingAdd(1, ordering: .relaxed)
  }
}

private final class CountingCancellable: Cancellable {
  let counter = CancelCounter()

  func cancel() {
    counter.increment()
  }
}

@Suite(.leakChecked)
struct AnyCancellableTests {
  @Test func closureRunsOnCancel() {
    let counter = CancelCounter()
    let token = AnyCancellable { counter.increment() }
    #expect(counter.value == 0)
    token.cancel()
    #expect(counter.value == 1)
  }

  @Test func cancelsOnlyOnce() {
    let counter = CancelCounter()
    let token = AnyCancellable { counter.increment() }
    token.cancel()
    token.cancel()
    token.cancel()
    #expect(counter.value == 1)
  }

  @Test func cancelsOnDeinit() {
    let counter = CancelCounter()
    var token: AnyCancellable? = AnyCancellable { counter.increment() }
    #expect(token != nil)
    #expect(counter.value == 0)
    token = nil
    #expect(counter.value == 1)
  }

  @Test func deinitAfterCancelDoesNotCancelAgain() {
    let counter = CancelCounter()
    var token: AnyCancellable? = AnyCancellable { counter.increment() }
    token?.cancel()
    token = nil
    #expect(counter.value == 1)
  }

  @Test func cancelFromManyThreadsRunsOnce() {
    let counter = CancelCounter()
    let token = AnyCancellable { counter.increment() }
    DispatchQueue.concurrentPerform(iterations: 16) { _ in
      token.cancel()
    }
    #expect(counter.value == 1)
  }

  @Test func cancelReleasesTheClosure() {
    weak var weakProbe: CapturedProbe?
    let token: AnyCancellable
    do {
      let probe = CapturedProbe()
      weakProbe = probe
      token = AnyCancellable { _ = probe }
    }
    #expect(weakProbe != nil)
    token.cancel()
    #expect(weakProbe == nil)
  }

  @Test func wrapsACancellable() {
    let inner = CountingCancellable()
    let token = AnyCancellable(inner)
    #expect(inner.counter.value == 0)
    token.cancel()
    #expect(inner.counter.value == 1)
    token.cancel()
    #expect(inner.counter.value == 1)
  }

  @Test func wrappedCancellableIsCancelledOnDeinit() {
    let inner = CountingCancellable()
    var token: AnyCancellable? = AnyCancellable(inner)
    #expect(token != nil)
    token = nil
    #expect(inner.counter.value == 1)
  }

  @Test func wrapsASubscriptionAndCancelsIt() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    [1, 2, 3].publisher.subscribe(subscriber)
    let token = AnyCancellable(subscriber.subscription!)
    token.cancel()
    subscriber.request(.max(5))
    #expect(subscriber.values == [1])
    #expect(subscriber.completion == nil)
    #expect(subscriber.violations.isEmpty)
  }

  @Test func hashableByIdentity() {
    let first = AnyCancellable {}
    let second = AnyCancellable {}
    #expect(first == first)
    #expect(first != second)
    #expect(first.hashValue == first.hashValue)
    let set: Set<AnyCancellable> = [first, second, first]
    #expect(set.count == 2)
  }

  @Test func storeInSet() {
    let counter = CancelCounter()
    var tokens = Set<AnyCancellable>()
    let token = AnyCancellable { counter.increment() }
    token.store(in: &tokens)
    token.store(in: &tokens)
    AnyCancellable { counter.increment() }.store(in: &tokens)
    #expect(tokens.count == 2)
    #expect(tokens.contains(token))
    #expect(counter.value == 0)
    tokens.removeAll()
    // `token` itself is still alive, so only the other one cancelled.
    #expect(counter.value == 1)
  }

  @Test func storeInArray() {
    let counter = CancelCounter()
    var tokens: [AnyCancellable] = []
    let token = AnyCancellable { counter.increment() }
    token.store(in: &tokens)
    AnyCancellable { counter.increment() }.store(in: &tokens)
    #expect(tokens.count == 2)
    #expect(tokens[0] === token)
    tokens.removeAll()
    #expect(counter.value == 1)
    token.cancel()
    #expect(counter.value == 2)
  }

  @Test func anyCancellableStoresInOtherRangeReplaceableCollections() {
    let counter = CancelCounter()
    var tokens = ContiguousArray<AnyCancellable>()
    AnyCancellable { counter.increment() }.store(in: &tokens)
    #expect(tokens.count == 1)
    tokens = []
    #expect(counter.value == 1)
  }

  @Test func cancellableStoreErasesIntoSetAndArray() {
    let first = CountingCancellable()
    let second = CountingCancellable()
    var set = Set<AnyCancellable>()
    var array: [AnyCancellable] = []
    first.store(in: &set)
    second.store(in: &array)
    #expect(set.count == 1)
    #expect(array.count == 1)
    set.removeAll()
    array.removeAll()
    #expect(first.counter.value == 1)
    #expect(second.counter.value == 1)
  }

  @Test func sinkTokenCancelsItsSubscriptionOnDeinit() {
    let subject = PassthroughSubject<Int, Never>()
    var received: [Int] = []
    var token: AnyCancellable? = subject.sink { received.append($0) }
    subject.send(1)
    #expect(token != nil)
    token = nil
    subject.send(2)
    #expect(received == [1])
  }

  /// An `AnyCancellable` made from another is a separate element of a set; storing one twice
  /// keeps one; cancelling the outer one cancels the inner one's action, once.
  /// Evidence (OpenCombine): AnyCancellableTests.swift `testStoreInSet` and `testCancelableInitialized`.
  @Test func anyCancellableWrappingAnotherIsADistinctElement() {
    var cancels = 0
    let inner = AnyCancellable { cancels += 1 }
    let outer = AnyCancellable(inner)
    var set = Set<AnyCancellable>()
    inner.store(in: &set)
    outer.store(in: &set)
    outer.store(in: &set)
    #expect(set == [inner, outer])
    outer.cancel()
    outer.cancel()
    inner.cancel()
    #expect(cancels == 1)
  }
}

import Conduit
import ConduitTesting
import Testing

/// `assign(to: &$property)`, and the leak it fixes.
@Suite(.leakChecked)
struct PublishedAssignmentTests {
  final class Clock: ObservableObject {
    @Published var now = 0
  }

  final class LeakyClock: ObservableObject {
    @Published var now = 0
    var cancellables: Set<AnyCancellable> = []

    func bind(to ticks: some Publisher<Int, Never>) {
      ticks.assign(to: \.now, on: self).store(in: &cancellables)
    }
  }

  final class FixedClock: ObservableObject {
    @Published var now = 0

    func bind(to ticks: some Publisher<Int, Never>) {
      ticks.assign(to: &$now)
    }
  }

  @Test func assignedValuesArePublishedAndTheUpstreamIsAskedForEverything() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let clock = Clock()
    upstream.assign(to: &clock.$now)
    #expect(upstream.events == [.requested(.unlimited)])
    let subscriber = TestSubscriber<Int, Never>()
    clock.$now.subscribe(subscriber)
    upstream.send(1)
    upstream.send(2)
    #expect(clock.now == 2)
    #expect(subscriber.values == [0, 1, 2])
    subscriber.cancel()
    upstream.detach()
  }

  @Test func theUpstreamsCompletionIsIgnored() {
    let upstream = PassthroughSubject<Int, Never>()
    let clock = Clock()
    upstream.assign(to: &clock.$now)
    let subscriber = TestSubscriber<Int, Never>()
    clock.$now.subscribe(subscriber)
    upstream.send(completion: .finished)
    clock.now = 7
    #expect(subscriber.events == [.subscription, .value(0), .value(7)])
    subscriber.cancel()
  }

  @Test func theAssignmentEndsWithTheObject() {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    weak var freed: Clock?
    do {
      let clock = Clock()
      freed = clock
      upstream.assign(to: &clock.$now)
      upstream.send(3)
      #expect(clock.now == 3)
    }
    #expect(freed == nil)
    #expect(upstream.events == [.requested(.unlimited), .cancelled])
    upstream.detach()
  }

  @Test func assignToOnSelfLeaksTheObject() throws {
    let ticks = PassthroughSubject<Int, Never>()
    #expect(throws: LeakCheckFailure.self) {
      try withLeakCheck(timeout: .milliseconds(50)) { tracker in
        tracker.track(LeakyClock()).bind(to: ticks)
      }
    }
    // The cycle through the token ends only with the upstream.
    ticks.send(completion: .finished)
  }

  @Test func assignToThePropertyDoesNotLeak() throws {
    let ticks = PassthroughSubject<Int, Never>()
    try withLeakCheck { tracker in
      let clock = tracker.track(FixedClock())
      clock.bind(to: ticks)
      ticks.send(4)
      #expect(clock.now == 4)
    }
  }
}

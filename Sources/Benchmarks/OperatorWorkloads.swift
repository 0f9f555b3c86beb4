import Conduit
import Synchronization

/// The workloads of the operator issue.
///
/// Their subscribers hand each value to `blackHole`, as the subject workloads' do. A sink that
/// adds into a captured variable (`sum &+= $0`) pays Swift's run-time exclusivity check on that
/// variable on every call, which the LockedCall baseline does not pay, so the workload would
/// measure the closure more than the operator.
enum OperatorWorkloads {
  nonisolated(unsafe) static let all: [Workload] = [
    Workload("6 x (map+filter), each erased, per value", baseline: "baseline.ClosureChain", target: 4) {
      let subject = PassthroughSubject<Int, Never>()
      let cancellable = erasedChain(subject.eraseToAnyPublisher()).sink { blackHole($0) }
      defer { cancellable.cancel() }
      return measure(operations: 500_000) { count in
        for value in 0..<count { subject.send(value) }
      }
    },
    Workload("build + subscribe + cancel the 12-operator chain", baseline: "baseline.Alloc5", target: 5) {
      let subject = PassthroughSubject<Int, Never>()
      return measure(operations: 50_000) { count in
        for _ in 0..<count {
          let cancellable = erasedChain(subject.eraseToAnyPublisher()).sink { blackHole($0) }
          cancellable.cancel()
        }
      }
    },
    Workload(
      "build 5 x flatMap { Just($0) } over a custom publisher, subscribe, deliver one value, cancel",
      baseline: "baseline.Alloc5", target: 10
    ) {
      measure(operations: 50_000) { count in
        for _ in 0..<count {
          var pipeline = Pump(n: 1).eraseToAnyPublisher()
          for _ in 0..<5 { pipeline = pipeline.flatMap { Just($0) }.eraseToAnyPublisher() }
          pipeline.sink { blackHole($0) }.cancel()
        }
      }
    },
    Workload(
      "build 5 x map { Just($0) }.switchToLatest() over a custom publisher, subscribe, deliver one value, cancel",
      baseline: "baseline.Alloc5", target: 10
    ) {
      measure(operations: 50_000) { count in
        for _ in 0..<count {
          var pipeline = Pump(n: 1).eraseToAnyPublisher()
          for _ in 0..<5 { pipeline = pipeline.map { Just($0) }.switchToLatest().eraseToAnyPublisher() }
          pipeline.sink { blackHole($0) }.cancel()
        }
      }
    },
    Workload("5 x flatMap { Just($0) }, per value", baseline: "baseline.Alloc5", target: 3) {
      let subject = PassthroughSubject<Int, Never>()
      let cancellable =
        subject
        .flatMap { Just($0) }.flatMap { Just($0) }.flatMap { Just($0) }.flatMap { Just($0) }.flatMap { Just($0) }
        .sink { blackHole($0) }
      defer { cancellable.cancel() }
      return measure(operations: 100_000) { count in
        for value in 0..<count { subject.send(value) }
      }
    },
    Workload("5 x map { Just($0) }.switchToLatest(), per value", baseline: "baseline.Alloc5", target: 3) {
      let subject = PassthroughSubject<Int, Never>()
      let cancellable =
        subject
        .map { Just($0) }.switchToLatest().map { Just($0) }.switchToLatest().map { Just($0) }.switchToLatest()
        .map { Just($0) }.switchToLatest().map { Just($0) }.switchToLatest()
        .sink { blackHole($0) }
      defer { cancellable.cancel() }
      return measure(operations: 100_000) { count in
        for value in 0..<count { subject.send(value) }
      }
    },
    Workload("merge of two subjects, per value", baseline: "baseline.LockedCall", target: 3) {
      let left = PassthroughSubject<Int, Never>()
      let right = PassthroughSubject<Int, Never>()
      let cancellable = left.merge(with: right).sink { blackHole($0) }
      defer { cancellable.cancel() }
      return measure(operations: 1_000_000) { count in
        for value in 0..<count / 2 {
          left.send(value)
          right.send(value)
        }
      }
    },
    Workload("zip of two subjects, per pair", baseline: "baseline.LockedCall", target: 5) {
      let left = PassthroughSubject<Int, Never>()
      let right = PassthroughSubject<Int, Never>()
      let cancellable = left.zip(right).sink { blackHole($0.0 &+ $0.1) }
      defer { cancellable.cancel() }
      return measure(operations: 500_000) { count in
        for value in 0..<count {
          left.send(value)
          right.send(value)
        }
      }
    },
    Workload("combineLatest of 4 sources nested 7 deep, per value", baseline: "baseline.LockedCall", target: 10) {
      let subjects = (0..<4).map { _ in CurrentValueSubject<Int, Never>(0) }
      var level = subjects[0].combineLatest(subjects[1], subjects[2], subjects[3]) { $0 &+ $1 &+ $2 &+ $3 }
        .eraseToAnyPublisher()
      for _ in 1..<7 {
        level = level.combineLatest(subjects[1], subjects[2], subjects[3]) { $0 &+ $1 &+ $2 &+ $3 }
          .eraseToAnyPublisher()
      }
      let cancellable = level.sink { blackHole($0) }
      defer { cancellable.cancel() }
      return measure(operations: 200_000) { count in
        for value in 0..<count { subjects[0].send(value) }
      }
    },
    Workload(
      "reference: the same, hand-written with one Mutex per level", baseline: "baseline.LockedCall", target: 10,
      note: "not Conduit: a floor for the workload above, which takes a lock round trip per level too"
    ) {
      let source = CurrentValueSubject<Int, Never>(0)
      var levels: [LockedCombineLevel] = []
      for _ in 0..<7 { levels.append(LockedCombineLevel(transform: { $0 &+ $1 &+ $2 &+ $3 }, next: levels.last)) }
      let top = Unmanaged.passUnretained(levels.last!)
      let cancellable = source.sink { value in top._withUnsafeGuaranteedRef { $0.receive(value) } }
      defer {
        cancellable.cancel()
        blackHole(levels)
      }
      return measure(operations: 200_000) { count in
        for value in 0..<count { source.send(value) }
      }
    },
    Workload(
      "reference: the same, hand-written and serialized, one owner CAS pair per level",
      baseline: "baseline.LockedCall", target: 10,
      note: "not Conduit: the floor for Combine's rule that calls into a subscriber never overlap"
    ) {
      let source = CurrentValueSubject<Int, Never>(0)
      var next: (Int) -> Void = { blackHole($0) }
      var levels: [SerializedCombineLevel] = []
      for _ in 0..<7 {
        let level = SerializedCombineLevel(transform: { $0 &+ $1 &+ $2 &+ $3 }, next: next)
        levels.append(level)
        next = { level.receive($0) }
      }
      let top = next
      let cancellable = source.sink { top($0) }
      defer {
        cancellable.cancel()
        blackHole(levels)
      }
      return measure(operations: 200_000) { count in
        for value in 0..<count { source.send(value) }
      }
    },
    Workload("share() with two subscribers, per value sent", baseline: "baseline.LockedCall", target: 6) {
      let subject = PassthroughSubject<Int, Never>()
      let shared = subject.share()
      let first = shared.sink { blackHole($0) }
      let second = shared.sink { blackHole($0) }
      defer {
        first.cancel()
        second.cancel()
      }
      return measure(operations: 1_000_000) { count in
        for value in 0..<count { subject.send(value) }
      }
    },
  ]

  /// Six `map` + `filter` pairs, each pair erased.
  static func erasedChain(_ source: AnyPublisher<Int, Never>) -> AnyPublisher<Int, Never> {
    var chain = source
    for step in 0..<6 {
      chain = chain.map { $0 &+ step }.filter { $0 & 0x3FFF_FFFF != 0x3FFF_FFFF }.eraseToAnyPublisher()
    }
    return chain
  }
}

/// One level of a hand-written `combineLatest` of four `Int`s: the least a thread-safe level can
/// do (store the value under a lock, read the other three, call the transform, pass the result
/// on). It is a lower bound, not an alternative: it calls on after unlocking, so calls to the next
/// level can overlap, and it keeps no demand, no backlog and no completion state.
final class LockedCombineLevel: Sendable {
  let latest = Mutex((0, 0, 0, 0))
  let transform: @Sendable (Int, Int, Int, Int) -> Int
  // Unretained, so that the floor pays no reference counting; the workload keeps every level.
  let next: Unmanaged<LockedCombineLevel>?

  init(transform: @escaping @Sendable (Int, Int, Int, Int) -> Int, next: LockedCombineLevel?) {
    self.transform = transform
    self.next = next.map { Unmanaged.passUnretained($0) }
  }

  @inline(never)
  func receive(_ value: Int) {
    let values = latest.withLock { latest in
      latest.0 = value
      return latest
    }
    let output = transform(values.0, values.1, values.2, values.3)
    if let next {
      next._withUnsafeGuaranteedRef { $0.receive(output) }
    } else {
      blackHole(output)
    }
  }
}

/// One level of a hand-written `combineLatest` of four `Int`s that keeps DESIGN §2.3 (calls into
/// the next level never overlap) the cheapest way there is: it owns itself across the call, with
/// one atomic compare-exchange to take ownership and one to give it back, as
/// `CombiningSubscription` does on its uncontended path, and it reaches the next level through one
/// closure, the least an erased hop costs. Both exchanges must be read-modify-writes: a thread
/// that finds the level owned leaves its work for the owner, and an owner that gave ownership back
/// with a plain store could miss that work. A floor, not an alternative: it keeps no demand, no
/// backlog and no completion state, and it stops the process if it is ever contended.
final class SerializedCombineLevel: @unchecked Sendable {
  let ownership = Atomic<Int>(0)
  // Guarded by `ownership`.
  var latest = (0, 0, 0, 0)
  let transform: (Int, Int, Int, Int) -> Int
  let next: (Int) -> Void

  init(transform: @escaping (Int, Int, Int, Int) -> Int, next: @escaping (Int) -> Void) {
    self.transform = transform
    self.next = next
  }

  @inline(never)
  func receive(_ value: Int) {
    guard ownership.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged else {
      fatalError("SerializedCombineLevel is a single-threaded floor; it was entered while owned")
    }
    latest.0 = value
    next(transform(latest.0, latest.1, latest.2, latest.3))
    guard ownership.compareExchange(expected: 1, desired: 0, ordering: .releasing).exchanged else {
      fatalError("SerializedCombineLevel is a single-threaded floor; its ownership changed while owned")
    }
  }
}

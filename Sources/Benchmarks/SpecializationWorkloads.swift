import Conduit

/// Pipelines whose per-value code runs unspecialized unless Conduit's types are shaped for the
/// optimizer: an operator used more than once, a chain of thirty operators (its subscriber type
/// nests deep), combining operators nested with values that grow, combining operators nested
/// seven deep (their subscribing recurses through one function, which must be inlined), and
/// operators whose code client modules must be able to specialize (`share(replay:)`,
/// `drop(untilOutputFrom:)`).
///
/// The optimizer keeps a generic function specialized along a call chain only until the function
/// recurs with type arguments that grow; after that, calls run generic code that looks up type
/// metadata on every value (see `OperatorLink` in Conduit). These workloads keep those pipelines
/// under watch. CI also fails the release build if the optimizer reports such a loop for a
/// subscriber's `receive(_:)`. Their targets are guards, set well above what specialized code
/// takes and well below what unspecialized code takes; no issue set them.
enum SpecializationWorkloads {
  nonisolated(unsafe) static let all: [Workload] = [
    Workload(
      "map, filter, removeDuplicates, handleEvents, scan, compactMap, 3 x each, per value",
      baseline: "baseline.ClosureChain", target: 6,
      note: "a guard, not a goal: 20x when the third uses ran unspecialized"
    ) {
      let subject = PassthroughSubject<Int, Never>()
      return timeSends(into: subject, through: repeatedStep(repeatedStep(repeatedStep(subject))))
    },
    Workload(
      "map, filter, removeDuplicates, handleEvents, scan, compactMap, 5 x each (30 operators), per value",
      baseline: "baseline.ClosureChain", target: 8,
      note: "a guard, not a goal: 100x when the subscriber type nested too deep to be specialized"
    ) {
      let subject = PassthroughSubject<Int, Never>()
      let third = repeatedStep(repeatedStep(repeatedStep(subject)))
      return timeSends(into: subject, through: repeatedStep(repeatedStep(third)))
    },
    Workload(
      "tryMap, prefix, dropFirst, output(in:), mapError, 3 x each, per value",
      baseline: "baseline.ClosureChain", target: 8,
      note: "a guard, not a goal: 38x when the third uses ran unspecialized"
    ) {
      let subject = PassthroughSubject<Int, Never>()
      let first = fallibleStep(subject.setFailureType(to: (any Error).self))
      let second = fallibleStep(first)
      let third = fallibleStep(second)
      let cancellable = third.sink(receiveCompletion: { _ in }, receiveValue: { blackHole($0) })
      defer { cancellable.cancel() }
      return measure(operations: 200_000) { count in
        for value in 0..<count { subject.send(value) }
      }
    },
    Workload(
      "combineLatest nested 4 deep without a transform (values grow), per value",
      baseline: "baseline.LockedCall", target: 20,
      note: "a guard, not a goal: 175x when the deeper levels ran unspecialized"
    ) {
      let subjects = (0..<5).map { _ in CurrentValueSubject<Int, Never>(0) }
      let inner = subjects[0].combineLatest(subjects[1]).combineLatest(subjects[2])
      let outer = inner.combineLatest(subjects[3]).combineLatest(subjects[4])
      let cancellable = outer.sink { blackHole($0) }
      defer { cancellable.cancel() }
      return measure(operations: 200_000) { count in
        for value in 0..<count { subjects[0].send(value) }
      }
    },
    Workload(
      "combineLatest of 4 sources with a transform, nested 7 deep and not erased, per value",
      baseline: "baseline.LockedCall", target: 30,
      note: "a guard, not a goal: 800x when the fifth level down subscribed through unspecialized code"
    ) {
      let subjects = (0..<4).map { _ in CurrentValueSubject<Int, Never>(0) }
      let (a, b, c) = (subjects[1], subjects[2], subjects[3])
      // Written out level by level: the type of each level nests the one before.
      let level1 = subjects[0].combineLatest(a, b, c) { $0 &+ $1 &+ $2 &+ $3 }
      let level2 = level1.combineLatest(a, b, c) { $0 &+ $1 &+ $2 &+ $3 }
      let level3 = level2.combineLatest(a, b, c) { $0 &+ $1 &+ $2 &+ $3 }
      let level4 = level3.combineLatest(a, b, c) { $0 &+ $1 &+ $2 &+ $3 }
      let level5 = level4.combineLatest(a, b, c) { $0 &+ $1 &+ $2 &+ $3 }
      let level6 = level5.combineLatest(a, b, c) { $0 &+ $1 &+ $2 &+ $3 }
      let level7 = level6.combineLatest(a, b, c) { $0 &+ $1 &+ $2 &+ $3 }
      let cancellable = level7.sink { blackHole($0) }
      defer { cancellable.cancel() }
      return measure(operations: 200_000) { count in
        for value in 0..<count { subjects[0].send(value) }
      }
    },
    Workload(
      "merge(with:) then map, nested 7 deep, per value", baseline: "baseline.LockedCall", target: 25,
      note: "a guard, not a goal: 300x when the deeper levels subscribed through unspecialized code"
    ) {
      let subject = PassthroughSubject<Int, Never>()
      let other = PassthroughSubject<Int, Never>()
      let level1 = subject.merge(with: other).map { $0 &+ 1 }
      let level2 = level1.merge(with: other).map { $0 &+ 1 }
      let level3 = level2.merge(with: other).map { $0 &+ 1 }
      let level4 = level3.merge(with: other).map { $0 &+ 1 }
      let level5 = level4.merge(with: other).map { $0 &+ 1 }
      let level6 = level5.merge(with: other).map { $0 &+ 1 }
      let level7 = level6.merge(with: other).map { $0 &+ 1 }
      let cancellable = level7.sink { blackHole($0) }
      defer { cancellable.cancel() }
      return measure(operations: 200_000) { count in
        for value in 0..<count { subject.send(value) }
      }
    },
    Workload(
      "share(replay: 1) with two subscribers, per value sent", baseline: "baseline.LockedCall", target: 60,
      note: "a guard, not a goal: 730x when none of it could be specialized"
    ) {
      let subject = PassthroughSubject<Int, Never>()
      let shared = subject.share(replay: 1)
      let first = shared.sink { blackHole($0) }
      let second = shared.sink { blackHole($0) }
      defer {
        first.cancel()
        second.cancel()
      }
      return measure(operations: 500_000) { count in
        for value in 0..<count { subject.send(value) }
      }
    },
    Workload(
      "drop(untilOutputFrom:) and prefix(untilOutputFrom:), per value", baseline: "baseline.LockedCall", target: 20,
      note: "a guard, not a goal: 240x when none of it could be specialized"
    ) {
      let subject = PassthroughSubject<Int, Never>()
      let start = PassthroughSubject<Void, Never>()
      let stop = PassthroughSubject<Void, Never>()
      let cancellable = subject.drop(untilOutputFrom: start).prefix(untilOutputFrom: stop).sink { blackHole($0) }
      defer { cancellable.cancel() }
      start.send(())
      return measure(operations: 500_000) { count in
        for value in 0..<count { subject.send(value) }
      }
    },
  ]

  /// The time per value sent into `subject`, which feeds `pipeline`, to a sink.
  static func timeSends(
    into subject: PassthroughSubject<Int, Never>, through pipeline: some Publisher<Int, Never>
  )
    -> Double
  {
    let cancellable = pipeline.sink { blackHole($0) }
    defer { cancellable.cancel() }
    return measure(operations: 200_000) { count in
      for value in 0..<count { subject.send(value) }
    }
  }

  /// Six operators that keep the values' type; everything passes.
  static func repeatedStep<P: Publisher>(_ upstream: P) -> some Publisher<Int, Never>
  where P.Output == Int, P.Failure == Never {
    upstream
      .map { $0 &+ 1 }
      .filter { $0 != Int.min }
      .removeDuplicates()
      .handleEvents(receiveOutput: { blackHole($0) })
      .scan(0) { _, value in value }
      .compactMap { $0 }
  }

  /// Five operators that can end the stream or fail; everything passes.
  static func fallibleStep<P: Publisher>(_ upstream: P) -> some Publisher<Int, any Error>
  where P.Output == Int, P.Failure == any Error {
    upstream
      .tryMap { $0 &+ 1 }
      .prefix(Int.max)
      .dropFirst(0)
      .output(in: 0...)
      .mapError { $0 }
  }
}

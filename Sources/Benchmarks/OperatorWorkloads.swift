import Conduit

/// The workloads of the operator issue.
enum OperatorWorkloads {
  nonisolated(unsafe) static let all: [Workload] = [
    Workload("6 x (map+filter), each erased, per value", baseline: "baseline.ClosureChain", target: 4) {
      let subject = PassthroughSubject<Int, Never>()
      var sum = 0
      let cancellable = erasedChain(subject.eraseToAnyPublisher()).sink { sum &+= $0 }
      defer { cancellable.cancel() }
      let result = measure(operations: 500_000) { count in
        for value in 0..<count { subject.send(value) }
      }
      blackHole(sum)
      return result
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
    Workload("5 x flatMap { Just($0) }, per value", baseline: "baseline.Alloc5", target: 3) {
      let subject = PassthroughSubject<Int, Never>()
      var sum = 0
      let cancellable =
        subject
        .flatMap { Just($0) }.flatMap { Just($0) }.flatMap { Just($0) }.flatMap { Just($0) }.flatMap { Just($0) }
        .sink { sum &+= $0 }
      defer { cancellable.cancel() }
      let result = measure(operations: 100_000) { count in
        for value in 0..<count { subject.send(value) }
      }
      blackHole(sum)
      return result
    },
    Workload("5 x map { Just($0) }.switchToLatest(), per value", baseline: "baseline.Alloc5", target: 3) {
      let subject = PassthroughSubject<Int, Never>()
      var sum = 0
      let cancellable =
        subject
        .map { Just($0) }.switchToLatest().map { Just($0) }.switchToLatest().map { Just($0) }.switchToLatest()
        .map { Just($0) }.switchToLatest().map { Just($0) }.switchToLatest()
        .sink { sum &+= $0 }
      defer { cancellable.cancel() }
      let result = measure(operations: 100_000) { count in
        for value in 0..<count { subject.send(value) }
      }
      blackHole(sum)
      return result
    },
    Workload("merge of two subjects, per value", baseline: "baseline.LockedCall", target: 3) {
      let left = PassthroughSubject<Int, Never>()
      let right = PassthroughSubject<Int, Never>()
      var sum = 0
      let cancellable = left.merge(with: right).sink { sum &+= $0 }
      defer { cancellable.cancel() }
      let result = measure(operations: 1_000_000) { count in
        for value in 0..<count / 2 {
          left.send(value)
          right.send(value)
        }
      }
      blackHole(sum)
      return result
    },
    Workload("zip of two subjects, per pair", baseline: "baseline.LockedCall", target: 5) {
      let left = PassthroughSubject<Int, Never>()
      let right = PassthroughSubject<Int, Never>()
      var sum = 0
      let cancellable = left.zip(right).sink { sum &+= $0.0 &+ $0.1 }
      defer { cancellable.cancel() }
      let result = measure(operations: 500_000) { count in
        for value in 0..<count {
          left.send(value)
          right.send(value)
        }
      }
      blackHole(sum)
      return result
    },
    Workload("combineLatest of 4 sources nested 7 deep, per value", baseline: "baseline.LockedCall", target: 10) {
      let subjects = (0..<4).map { _ in CurrentValueSubject<Int, Never>(0) }
      var level = subjects[0].combineLatest(subjects[1], subjects[2], subjects[3]) { $0 &+ $1 &+ $2 &+ $3 }
        .eraseToAnyPublisher()
      for _ in 1..<7 {
        level = level.combineLatest(subjects[1], subjects[2], subjects[3]) { $0 &+ $1 &+ $2 &+ $3 }
          .eraseToAnyPublisher()
      }
      var sum = 0
      let cancellable = level.sink { sum &+= $0 }
      defer { cancellable.cancel() }
      let result = measure(operations: 200_000) { count in
        for value in 0..<count { subjects[0].send(value) }
      }
      blackHole(sum)
      return result
    },
    Workload("share() with two subscribers, per value sent", baseline: "baseline.LockedCall", target: 6) {
      let subject = PassthroughSubject<Int, Never>()
      let shared = subject.share()
      var sum = 0
      let first = shared.sink { sum &+= $0 }
      let second = shared.sink { sum &+= $0 }
      defer {
        first.cancel()
        second.cancel()
      }
      let result = measure(operations: 1_000_000) { count in
        for value in 0..<count { subject.send(value) }
      }
      blackHole(sum)
      return result
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

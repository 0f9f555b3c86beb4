import Conduit

enum Workloads {
  nonisolated(unsafe) static let all: [Workload] =
    issueTwo + OperatorWorkloads.all + SpecializationWorkloads.all + TimeWorkloads.all
    + SchedulerWorkloads.all + BridgeWorkloads.all + ConcurrencyWorkloads.all + PublishedWorkloads.all
    + ObservationWorkloads.all + FoundationWorkloads.all + IsolationWorkloads.all

  nonisolated(unsafe) static let issueTwo: [Workload] = [
    Workload("PassthroughSubject.send, 1 sink, per value", baseline: "baseline.LockedCall", target: 3) {
      let subject = PassthroughSubject<Int, Never>()
      let cancellable = subject.sink { blackHole($0) }
      defer { cancellable.cancel() }
      return measure(operations: 1_000_000) { count in
        for value in 0..<count { subject.send(value) }
      }
    },
    Workload(
      "reference: one delivery per value claimed by an atomic count (subjects, combining operators)",
      baseline: "baseline.LockedCall", target: 3, note: "a floor: the claim alone, around one opaque call"
    ) {
      let owner = ReferenceDelivery.Counted(deliver: opaque { blackHole($0) })
      return measure(operations: 2_000_000) { count in
        for value in 0..<count { owner.send(value) }
      }
    },
    Workload(
      "reference: one delivery per value claimed by a flag under a lock (DeliveryOwnership)",
      baseline: "baseline.LockedCall", target: 3, note: "a floor: the claim alone, around one opaque call"
    ) {
      let owner = ReferenceDelivery.Flagged(deliver: opaque { blackHole($0) })
      return measure(operations: 2_000_000) { count in
        for value in 0..<count { owner.send(value) }
      }
    },
    Workload("PassthroughSubject.send, 100 sinks, per delivery", baseline: "baseline.LockedCall", target: 1.5) {
      let subject = PassthroughSubject<Int, Never>()
      let cancellables = (0..<100).map { _ in subject.sink { blackHole($0) } }
      defer { cancellables.forEach { $0.cancel() } }
      return measure(operations: 2_000_000) { count in
        for value in 0..<count / 100 { subject.send(value) }
      }
    },
    Workload("CurrentValueSubject.send, 1 sink, per value", baseline: "baseline.LockedCall", target: 3) {
      let subject = CurrentValueSubject<Int, Never>(0)
      let cancellable = subject.sink { blackHole($0) }
      defer { cancellable.cancel() }
      return measure(operations: 1_000_000) { count in
        for value in 0..<count { subject.send(value) }
      }
    },
    Workload(
      "(0..<N).publisher -> map -> filter -> map -> compactMap -> scan -> sink, per element",
      baseline: "baseline.ClosureChain", target: 2,
      note: "source erased, so that the operators run rather than Combine's eager Sequence overloads"
    ) {
      measure(operations: 1_000_000) { count in
        var sum = 0
        let cancellable = (0..<count).publisher.eraseToAnyPublisher()
          .map { $0 &+ 1 }
          .filter { $0 & 1023 != 1023 }
          .map { $0 &* 3 }
          .compactMap { $0 >= 0 ? $0 : nil }
          .scan(0) { $0 &+ $1 }
          .sink { sum &+= $0 }
        blackHole(sum)
        blackHole(cancellable)
      }
    },
    Workload(
      "the same, source not erased (Combine's Sequence overloads apply), per element",
      baseline: "baseline.ClosureChain", target: 2,
      note: "map/filter/compactMap/scan on Publishers.Sequence run eagerly over arrays, as in Combine"
    ) {
      measure(operations: 1_000_000) { count in
        var sum = 0
        let cancellable = (0..<count).publisher
          .map { $0 &+ 1 }
          .filter { $0 & 1023 != 1023 }
          .map { $0 &* 3 }
          .compactMap { $0 >= 0 ? $0 : nil }
          .scan(0) { $0 &+ $1 }
          .sink { sum &+= $0 }
        blackHole(sum)
        blackHole(cancellable)
      }
    },
    Workload(
      "(0..<N).publisher -> map -> .max(1) subscriber, per element", baseline: "baseline.ClosureChain", target: 2,
      note: "source erased, as above"
    ) {
      measure(operations: 1_000_000) { count in
        let subscriber = OneAtATime()
        (0..<count).publisher.eraseToAnyPublisher().map { $0 &+ 1 }.subscribe(subscriber)
        blackHole(subscriber.sum)
      }
    },
    Workload(
      "subscribe + cancel subject -> map -> filter -> removeDuplicates -> sink", baseline: "baseline.Alloc5", target: 3
    ) {
      let subject = PassthroughSubject<Int, Never>()
      return measure(operations: 200_000) { count in
        for _ in 0..<count {
          let cancellable = subject.map { $0 &+ 1 }.filter { $0 > 0 }.removeDuplicates().sink { blackHole($0) }
          cancellable.cancel()
        }
      }
    },
    Workload(
      "create a PassthroughSubject, subscribe a sink, send one value, cancel", baseline: "baseline.Alloc5", target: 2.5
    ) {
      measure(operations: 200_000) { count in
        for value in 0..<count {
          let subject = PassthroughSubject<Int, Never>()
          let cancellable = subject.sink { blackHole($0) }
          subject.send(value)
          cancellable.cancel()
        }
      }
    },
    Workload(
      "reference: the same, removeDuplicates replaced by a hand-written operator that hands upstream's subscription down",
      baseline: "baseline.Alloc5", target: 3,
      note: "a floor: one object per subscription, no state, no census"
    ) {
      let subject = PassthroughSubject<Int, Never>()
      return measure(operations: 200_000) { count in
        for _ in 0..<count {
          let cancellable = subject.map { $0 &+ 1 }.filter { $0 > 0 }.handingDownReference().sink { blackHole($0) }
          cancellable.cancel()
        }
      }
    },
    Workload(
      "reference: the same, removeDuplicates replaced by a hand-written operator with its own subscription",
      baseline: "baseline.Alloc5", target: 3,
      note: "a floor: two objects per subscription, as Combine's removeDuplicates has; no state, no census"
    ) {
      let subject = PassthroughSubject<Int, Never>()
      return measure(operations: 200_000) { count in
        for _ in 0..<count {
          let cancellable = subject.map { $0 &+ 1 }.filter { $0 > 0 }.ownSubscriptionReference().sink { blackHole($0) }
          cancellable.cancel()
        }
      }
    },
  ]
}

/// Demands one element at a time, the slowest path through a synchronous source.
final class OneAtATime: Subscriber {
  var sum = 0

  func receive(subscription: any Subscription) {
    subscription.request(.max(1))
  }

  func receive(_ input: Int) -> Subscribers.Demand {
    sum &+= input
    return .max(1)
  }

  func receive(completion: Subscribers.Completion<Never>) {}
}

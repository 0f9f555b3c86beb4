// Differential fuzzer for implementations of Apple's Combine API.
//
// Written against Combine's public API only. It compiles against any implementation through
// `import Engine`, a one-line shim module (`@_exported import Conduit` or
// `@_exported import OpenCombine`); the driver script `run` next to this file builds both.
//
// usage: Fuzz FIRST_SEED COUNT   one line per seed: SEED<TAB>pipeline<TAB>event log
//        Fuzz --cases            reads 'SEED OPKEEP STEPKEEP [DEMAND]' lines from stdin (hex bit
//                                masks of the operators / script steps to keep, '-' for all;
//                                DEMAND, hex: 1 no cancel inside receive, 2 no request inside
//                                receive, 4 receive returns .none, 8 initial demand .unlimited)
//                                and prints SEED/OPKEEP/STEPKEEP[/DEMAND]<TAB>pipeline<TAB>event
//                                log<TAB>shape, where
//                                shape is 'OPERATORS STEPS KIND,KIND,...' (counts before masking,
//                                kinds of the kept operators); the driver uses it to shrink cases
//
// A case is generated from its seed alone (SplitMix64): a source, 1-6 clock-free operators (the
// pipeline is erased to AnyPublisher<Int, E> after each one), the demand script of a recording
// subscriber, and an event script (subscribe, subject sends and completions, request, cancel,
// connect, attaching the extra subscribers of share/multicast). Everything runs on one thread.
// The event log holds only what subscribers receive: values, `fin`, `err(x)` (prefixed `!` when it
// arrived before the subscriber had received a subscription, and a value `^` when the subscriber
// had not asked for it; both break Combine's contract); `@k` marks the
// script step during which the events after it arrived (step numbers count the kept steps), and
// `sN:` prefixes what the extra subscriber N of a share()/multicast received.
//
// Pseudo-operators in descriptions (each stands for the code after it, `up` being the upstream):
//   .failingFirst(k, e)   Deferred { n += 1; return n <= k ? Fail(error: e) : up }
//   .zipWithSelf(a)       up.zip(up.map { $0 + a })
//   .zipShared(a)         { let s = up.share(); return s.zip(s.map { $0 + a }) }()
//   .deferred()           Deferred { up }
// `auxN` are PassthroughSubjects driven by the script, `innerN` the N-th PassthroughSubject a
// flatMap / switchToLatest transform created, `mN` the connectable that a multicast made, and
// `.sum` in collect's helper map is `reduce(0, +)`. A concrete source (`Just(x)`, `[..].publisher`
// with no `.setFailureType`) takes its first operator through that type's own overload.

import Engine

enum E: Error { case a, b, c }
typealias P = AnyPublisher<Int, E>

func ename(_ e: E) -> String {
  switch e {
  case .a: return "a"
  case .b: return "b"
  case .c: return "c"
  }
}

func rotate(_ e: E) -> E {
  switch e {
  case .a: return .b
  case .b: return .c
  case .c: return .a
  }
}

// MARK: - PRNG

struct SplitMix64 {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
  /// 0 ..< n
  mutating func int(_ n: Int) -> Int { Int(next() % UInt64(n)) }
  /// lo ... hi
  mutating func range(_ lo: Int, _ hi: Int) -> Int { lo + int(hi - lo + 1) }
  mutating func chance(_ percent: Int) -> Bool { int(100) < percent }
  mutating func value() -> Int { int(10) }
  mutating func values(_ lo: Int, _ hi: Int) -> [Int] { (0..<range(lo, hi)).map { _ in value() } }
  mutating func error() -> E { [E.a, .b, .c][int(3)] }
}

func list(_ xs: [Int]) -> String { "[" + xs.map(String.init).joined(separator: ", ") + "]" }

// MARK: - Demand scripts

enum D {
  case none, max(Int), unlimited
  var demand: Subscribers.Demand {
    switch self {
    case .none: return .none
    case .max(let n): return .max(n)
    case .unlimited: return .unlimited
    }
  }
  var text: String {
    switch self {
    case .none: return ".none"
    case .max(let n): return ".max(\(n))"
    case .unlimited: return ".unlimited"
    }
  }
}

struct DemandSpec {
  /// requested in receive(subscription:); .none means no request there
  var initial: D = .unlimited
  /// returned from the n-th receive(_:) (cycled)
  var perValue: [D] = [.none]
  /// cancel from inside the n-th receive(_:)
  var cancelAt: Int? = nil
  /// call request(d) from inside the n-th receive(_:)
  var requestAt: (Int, D)? = nil

  var text: String {
    var s = "initial " + initial.text + ", per value [" + perValue.map(\.text).joined(separator: ", ") + "]"
    if let (n, d) = requestAt { s += ", request(\(d.text)) inside value #\(n)" }
    if let n = cancelAt { s += ", cancel inside value #\(n)" }
    return s
  }
}

// MARK: - Recording

final class Log {
  var tokens: [String] = []
  var step = -1
  var marked = Int.min
  func add(_ s: String) {
    if marked != step {
      tokens.append("@\(step)")
      marked = step
    }
    tokens.append(s)
  }
}

final class Recorder: Subscriber {
  typealias Input = Int
  typealias Failure = E
  let tag: String
  let spec: DemandSpec
  let log: Log
  var subscription: Subscription?
  var received = 0
  /// What this subscriber asked for and has not received: a value beyond it breaks the contract.
  var outstanding = Subscribers.Demand.none

  init(tag: String, spec: DemandSpec, log: Log) {
    self.tag = tag
    self.spec = spec
    self.log = log
  }

  func receive(subscription: Subscription) {
    self.subscription = subscription
    switch spec.initial {
    case .none: break
    default: request(spec.initial.demand)
    }
  }

  /// Asks the subscription for more, counting it.
  func request(_ demand: Subscribers.Demand) {
    guard let subscription else { return }
    outstanding += demand
    subscription.request(demand)
  }

  func receive(_ input: Int) -> Subscribers.Demand {
    received += 1
    let unrequested = outstanding == .none ? "^" : ""
    if outstanding != .unlimited && outstanding != .none { outstanding -= 1 }
    log.add(tag + (subscription == nil ? "!" : unrequested) + String(input))
    if let n = spec.cancelAt, n == received {
      subscription?.cancel()
      return .none
    }
    if let (n, d) = spec.requestAt, n == received { request(d.demand) }
    if spec.perValue.isEmpty { return .none }
    let more = spec.perValue[(received - 1) % spec.perValue.count].demand
    outstanding += more
    return more
  }

  func receive(completion: Subscribers.Completion<E>) {
    let early = subscription == nil ? "!" : ""
    switch completion {
    case .finished: log.add(tag + early + "fin")
    case .failure(let e): log.add(tag + early + "err(" + ename(e) + ")")
    }
  }
}

/// Everything a running case needs besides the pipeline itself.
final class Ctx {
  let log = Log()
  var passthrough: PassthroughSubject<Int, E>?
  var current: CurrentValueSubject<Int, E>?
  var promise: ((Result<Int, E>) -> Void)?
  var aux: [PassthroughSubject<Int, E>] = []
  var inners: [PassthroughSubject<Int, E>] = []
  var sidePubs: [P?] = []
  var sideSpecs: [DemandSpec] = []
  var sideRecs: [Recorder] = []
  var connectables: [(() -> Cancellable)?] = []
  var connections: [Cancellable] = []
  var main: Recorder?
}

final class Counter { var n = 0 }

// MARK: - Erasure helpers (generic, so they never pick a specialised overload)

extension Publisher where Output == Int, Failure == E {
  var e: P { eraseToAnyPublisher() }
}
extension Publisher where Output == Int, Failure == Never {
  var n: P { setFailureType(to: E.self).eraseToAnyPublisher() }
}
extension Publisher where Output == Int, Failure == Error {
  var t: P { mapError { ($0 as? E) ?? E.c }.eraseToAnyPublisher() }
}
extension Publisher where Output == Bool, Failure == E {
  var b: P { map { $0 ? 1 : 0 }.eraseToAnyPublisher() }
}
extension Publisher where Output == Bool, Failure == Never {
  var bn: P { map { $0 ? 1 : 0 }.setFailureType(to: E.self).eraseToAnyPublisher() }
}
extension Publisher where Output == Bool, Failure == Error {
  var bt: P { map { $0 ? 1 : 0 }.mapError { ($0 as? E) ?? E.c }.eraseToAnyPublisher() }
}
extension Publisher where Output == [Int], Failure == E {
  var a: P { map { $0.count * 1000 + $0.reduce(0, &+) }.eraseToAnyPublisher() }
}
extension Publisher where Output == [Int], Failure == Never {
  var an: P { map { $0.count * 1000 + $0.reduce(0, &+) }.setFailureType(to: E.self).eraseToAnyPublisher() }
}

// MARK: - Operators

typealias Seq = Publishers.Sequence<[Int], Never>

struct OpSpec {
  var kind: String
  var text: String
  var build: (P, Ctx) -> P
  /// the same operator applied to a concrete Just (its own overload, where it has one)
  var just: ((Just<Int>) -> P)? = nil
  /// the same operator applied to a concrete Publishers.Sequence
  var seq: ((Seq) -> P)? = nil
}

enum Inner {
  case just, seq(Int), failIf(Int), empty, subject, mix

  var text: String {
    switch self {
    case .just: return "{ Just($0) }"
    case .seq(let n): return "{ v in (0..<\(n)).map { v * 10 + $0 }.publisher }"
    case .failIf(let m): return "{ $0 % \(m) == 0 ? Fail(error: E.c) : Just($0) }"
    case .empty: return "{ _ in Empty() }"
    case .subject: return "{ _ in PassthroughSubject() /* next inner subject */ }"
    case .mix:
      return "{ v in switch v % 4 { 0: PassthroughSubject() /* next inner subject */, 1: [v*10, v*10+1].publisher, 2: Just(v), 3: Fail(error: E.b) } }"
    }
  }
  var usesSubjects: Bool {
    switch self {
    case .subject, .mix: return true
    default: return false
    }
  }

  func make(_ v: Int, _ ctx: Ctx) -> P {
    switch self {
    case .just: return Just(v).setFailureType(to: E.self).eraseToAnyPublisher()
    case .seq(let n): return (0..<n).map { v &* 10 &+ $0 }.publisher.setFailureType(to: E.self).eraseToAnyPublisher()
    case .failIf(let m):
      return v % m == 0 ? Fail(error: E.c).eraseToAnyPublisher() : Just(v).setFailureType(to: E.self).eraseToAnyPublisher()
    case .empty: return Empty().eraseToAnyPublisher()
    case .subject:
      let s = PassthroughSubject<Int, E>()
      ctx.inners.append(s)
      return s.eraseToAnyPublisher()
    case .mix:
      switch ((v % 4) + 4) % 4 {
      case 0: return Inner.subject.make(v, ctx)
      case 1: return Inner.seq(2).make(v, ctx)
      case 2: return Inner.just.make(v, ctx)
      default: return Fail(error: E.b).eraseToAnyPublisher()
      }
    }
  }
}

struct Gen {
  var r: SplitMix64
  var auxCount = 0
  var sideSpecs: [DemandSpec] = []
  var connCount = 0
  var innerSubjects = false

  init(seed: UInt64) { r = SplitMix64(seed: seed) }

  mutating func newAux() -> Int {
    auxCount += 1
    return auxCount - 1
  }
  mutating func newSide() -> Int {
    var d = DemandSpec()
    d.initial = r.chance(60) ? .unlimited : .max(r.range(1, 2))
    d.perValue = [r.chance(50) ? .none : .max(1)]
    sideSpecs.append(d)
    return sideSpecs.count - 1
  }
  mutating func newConn() -> Int {
    connCount += 1
    return connCount - 1
  }
  mutating func inner() -> Inner {
    let k: Inner
    switch r.int(7) {
    case 0: k = .just
    case 1, 2: k = .seq(r.range(0, 3))
    case 3: k = .failIf(r.range(2, 4))
    case 4: k = .empty
    case 5: k = .subject
    default: k = .mix
    }
    if k.usesSubjects { innerSubjects = true }
    return k
  }
  mutating func demand() -> D {
    switch r.int(10) {
    case 0..<6: return .max(r.range(1, 3))
    default: return .unlimited
    }
  }

  // simpleOp has 18 cases, reducingOp 18, structuralOp 21 (some of them weighted twice or thrice)
  static let opCount = 18 + 18 + 21

  mutating func op() -> OpSpec {
    let which = r.int(Gen.opCount)
    switch which {
    case 0..<18: return simpleOp(which)
    case 18..<36: return reducingOp(which - 18)
    default: return structuralOp(which - 36)
    }
  }

  // Element-wise operators.
  mutating func simpleOp(_ which: Int) -> OpSpec {
    switch which {
    case 0:
      let a = r.range(1, 3), b = r.range(0, 3)
      return OpSpec(kind: "map", text: ".map { $0 * \(a) + \(b) }",
                    build: { p, _ in p.map { $0 &* a &+ b }.e },
                    just: { $0.map { $0 &* a &+ b }.n }, seq: { $0.map { $0 &* a &+ b }.n })
    case 1:
      let m = r.range(2, 5)
      return OpSpec(kind: "map", text: ".map { $0 % \(m) }",
                    build: { p, _ in p.map { $0 % m }.e },
                    just: { $0.map { $0 % m }.n }, seq: { $0.map { $0 % m }.n })
    case 2:
      let m = r.range(2, 3), k = r.int(m)
      return OpSpec(kind: "filter", text: ".filter { $0 % \(m) == \(k) }",
                    build: { p, _ in p.filter { $0 % m == k }.e },
                    just: { $0.filter { $0 % m == k }.n }, seq: { $0.filter { $0 % m == k }.n })
    case 3:
      let m = r.range(2, 3)
      return OpSpec(kind: "compactMap", text: ".compactMap { $0 % \(m) == 0 ? nil : $0 }",
                    build: { p, _ in p.compactMap { $0 % m == 0 ? nil : $0 }.e },
                    just: { $0.compactMap { $0 % m == 0 ? nil : $0 }.n },
                    seq: { $0.compactMap { $0 % m == 0 ? nil : $0 }.n })
    case 4:
      let i = r.range(0, 2)
      return OpSpec(kind: "scan", text: ".scan(\(i)) { $0 + $1 }",
                    build: { p, _ in p.scan(i) { $0 &+ $1 }.e },
                    just: { $0.scan(i) { $0 &+ $1 }.n }, seq: { $0.scan(i) { $0 &+ $1 }.n })
    case 5:
      if r.chance(50) {
        return OpSpec(kind: "removeDuplicates", text: ".removeDuplicates()",
                      build: { p, _ in p.removeDuplicates().e },
                      just: { $0.removeDuplicates().n }, seq: { $0.removeDuplicates().n })
      }
      let m = r.range(2, 3)
      return OpSpec(kind: "removeDuplicates", text: ".removeDuplicates(by: { $0 % \(m) == $1 % \(m) })",
                    build: { p, _ in p.removeDuplicates { $0 % m == $1 % m }.e },
                    just: { $0.removeDuplicates { $0 % m == $1 % m }.n },
                    seq: { $0.removeDuplicates { $0 % m == $1 % m }.n })
    case 6:
      let k = r.range(0, 3)
      return OpSpec(kind: "prefix", text: ".prefix(\(k))",
                    build: { p, _ in p.prefix(k).e }, just: { $0.prefix(k).n }, seq: { $0.prefix(k).n })
    case 7:
      let k = r.range(0, 3)
      return OpSpec(kind: "dropFirst", text: ".dropFirst(\(k))",
                    build: { p, _ in p.dropFirst(k).e }, just: { $0.dropFirst(k).n }, seq: { $0.dropFirst(k).n })
    case 8:
      let t = r.range(1, 7)
      return OpSpec(kind: "prefix(while:)", text: ".prefix(while: { $0 < \(t) })",
                    build: { p, _ in p.prefix(while: { $0 < t }).e },
                    just: { $0.prefix(while: { $0 < t }).n }, seq: { $0.prefix(while: { $0 < t }).n })
    case 9:
      let t = r.range(1, 7)
      return OpSpec(kind: "drop(while:)", text: ".drop(while: { $0 < \(t) })",
                    build: { p, _ in p.drop(while: { $0 < t }).e },
                    just: { $0.drop(while: { $0 < t }).n }, seq: { $0.drop(while: { $0 < t }).n })
    case 10:
      let m = r.range(2, 4), k = r.int(m), b = r.range(0, 3)
      return OpSpec(kind: "tryMap",
                    text: ".tryMap { if $0 % \(m) == \(k) { throw E.b }; return $0 + \(b) }",
                    build: { p, _ in p.tryMap { v -> Int in if v % m == k { throw E.b }; return v &+ b }.t },
                    just: { $0.tryMap { v -> Int in if v % m == k { throw E.b }; return v &+ b }.t },
                    seq: { $0.tryMap { v -> Int in if v % m == k { throw E.b }; return v &+ b }.t })
    case 11:
      let m = r.range(3, 5), k = r.int(m), j = r.int(2)
      return OpSpec(kind: "tryFilter",
                    text: ".tryFilter { if $0 % \(m) == \(k) { throw E.a }; return $0 % 2 == \(j) }",
                    build: { p, _ in p.tryFilter { v -> Bool in if v % m == k { throw E.a }; return v % 2 == j }.t },
                    just: { $0.tryFilter { v -> Bool in if v % m == k { throw E.a }; return v % 2 == j }.t },
                    seq: { $0.tryFilter { v -> Bool in if v % m == k { throw E.a }; return v % 2 == j }.t })
    case 12:
      let m = r.range(3, 5), k = r.int(m)
      return OpSpec(kind: "tryCompactMap",
                    text: ".tryCompactMap { if $0 % \(m) == \(k) { throw E.c }; return $0 % 2 == 0 ? nil : $0 }",
                    build: { p, _ in
                      p.tryCompactMap { v -> Int? in if v % m == k { throw E.c }; return v % 2 == 0 ? nil : v }.t
                    })
    case 13:
      let m = r.range(3, 5), k = r.int(m), i = r.range(0, 2)
      return OpSpec(kind: "tryScan",
                    text: ".tryScan(\(i)) { if $1 % \(m) == \(k) { throw E.b }; return $0 + $1 }",
                    build: { p, _ in
                      p.tryScan(i) { acc, v -> Int in if v % m == k { throw E.b }; return acc &+ v }.t
                    })
    case 14:
      let m = r.range(3, 5), k = r.int(m), t = r.range(2, 7)
      if r.chance(50) {
        return OpSpec(kind: "tryPrefix(while:)",
                      text: ".tryPrefix(while: { if $0 % \(m) == \(k) { throw E.a }; return $0 < \(t) })",
                      build: { p, _ in
                        p.tryPrefix(while: { v -> Bool in if v % m == k { throw E.a }; return v < t }).t
                      })
      }
      return OpSpec(kind: "tryDrop(while:)",
                    text: ".tryDrop(while: { if $0 % \(m) == \(k) { throw E.a }; return $0 < \(t) })",
                    build: { p, _ in p.tryDrop(while: { v -> Bool in if v % m == k { throw E.a }; return v < t }).t })
    case 15:
      let m = r.range(3, 5), k = r.int(m)
      return OpSpec(kind: "tryRemoveDuplicates",
                    text: ".tryRemoveDuplicates { if $1 % \(m) == \(k) { throw E.c }; return $0 == $1 }",
                    build: { p, _ in
                      p.tryRemoveDuplicates { x, y -> Bool in if y % m == k { throw E.c }; return x == y }.t
                    })
    case 16:
      let m = r.range(2, 4), x = r.value()
      return OpSpec(kind: "replaceNil", text: ".map { $0 % \(m) == 0 ? nil : $0 }.replaceNil(with: \(x))",
                    build: { p, _ in p.map { v -> Int? in v % m == 0 ? nil : v }.replaceNil(with: x).e })
    default:
      if r.chance(50) {
        return OpSpec(kind: "handleEvents", text: ".handleEvents()", build: { p, _ in p.handleEvents().e })
      }
      return OpSpec(kind: "handleEvents",
                    text: ".handleEvents(receiveSubscription: { _ in }, receiveOutput: { _ in }, receiveCompletion: { _ in }, receiveCancel: {}, receiveRequest: { _ in })",
                    build: { p, _ in
                      p.handleEvents(receiveSubscription: { _ in }, receiveOutput: { _ in },
                                     receiveCompletion: { _ in }, receiveCancel: {}, receiveRequest: { _ in }).e
                    })
    }
  }

  // Operators that reduce, select or count.
  mutating func reducingOp(_ which: Int) -> OpSpec {
    switch which {
    case 0:
      if r.chance(35) {
        return OpSpec(kind: "collect", text: ".collect().map { $0.count * 1000 + $0.sum }",
                      build: { p, _ in p.collect().a }, just: { $0.collect().an }, seq: { $0.collect().an })
      }
      let k = r.range(1, 3)
      return OpSpec(kind: "collect(n)", text: ".collect(\(k)).map { $0.count * 1000 + $0.sum }",
                    build: { p, _ in p.collect(k).a }, just: { $0.collect(k).an }, seq: { $0.collect(k).an })
    case 1:
      let i = r.range(0, 2)
      return OpSpec(kind: "reduce", text: ".reduce(\(i)) { $0 + $1 }",
                    build: { p, _ in p.reduce(i) { $0 &+ $1 }.e },
                    just: { $0.reduce(i) { $0 &+ $1 }.n }, seq: { $0.reduce(i) { $0 &+ $1 }.n })
    case 2:
      let m = r.range(3, 5), k = r.int(m), i = r.range(0, 2)
      return OpSpec(kind: "tryReduce",
                    text: ".tryReduce(\(i)) { if $1 % \(m) == \(k) { throw E.b }; return $0 + $1 }",
                    build: { p, _ in
                      p.tryReduce(i) { acc, v -> Int in if v % m == k { throw E.b }; return acc &+ v }.t
                    })
    case 3:
      return OpSpec(kind: "count", text: ".count()",
                    build: { p, _ in p.count().e }, just: { $0.count().n }, seq: { $0.count().n })
    case 4:
      return OpSpec(kind: "first", text: ".first()",
                    build: { p, _ in p.first().e }, just: { $0.first().n }, seq: { $0.first().n })
    case 5:
      let m = r.range(2, 3), k = r.int(m)
      return OpSpec(kind: "first(where:)", text: ".first(where: { $0 % \(m) == \(k) })",
                    build: { p, _ in p.first(where: { $0 % m == k }).e },
                    just: { $0.first(where: { $0 % m == k }).n }, seq: { $0.first(where: { $0 % m == k }).n })
    case 6:
      return OpSpec(kind: "last", text: ".last()",
                    build: { p, _ in p.last().e }, just: { $0.last().n }, seq: { $0.last().n })
    case 7:
      let m = r.range(2, 3), k = r.int(m)
      return OpSpec(kind: "last(where:)", text: ".last(where: { $0 % \(m) == \(k) })",
                    build: { p, _ in p.last(where: { $0 % m == k }).e },
                    just: { $0.last(where: { $0 % m == k }).n }, seq: { $0.last(where: { $0 % m == k }).n })
    case 8:
      switch r.int(3) {
      case 0:
        return OpSpec(kind: "min", text: ".min()",
                      build: { p, _ in p.min().e }, just: { $0.min().n }, seq: { $0.min().n })
      case 1:
        return OpSpec(kind: "max", text: ".max()",
                      build: { p, _ in p.max().e }, just: { $0.max().n }, seq: { $0.max().n })
      default:
        return OpSpec(kind: "min(by:)", text: ".min(by: { $0 % 3 < $1 % 3 })",
                      build: { p, _ in p.min(by: { $0 % 3 < $1 % 3 }).e },
                      just: { $0.min(by: { $0 % 3 < $1 % 3 }).n }, seq: { $0.min(by: { $0 % 3 < $1 % 3 }).n })
      }
    case 9:
      let x = r.value()
      return OpSpec(kind: "contains", text: ".contains(\(x)).map { $0 ? 1 : 0 }",
                    build: { p, _ in p.contains(x).b }, just: { $0.contains(x).bn }, seq: { $0.contains(x).bn })
    case 10:
      let t = r.range(3, 8)
      return OpSpec(kind: "contains(where:)", text: ".contains(where: { $0 > \(t) }).map { $0 ? 1 : 0 }",
                    build: { p, _ in p.contains(where: { $0 > t }).b },
                    just: { $0.contains(where: { $0 > t }).bn }, seq: { $0.contains(where: { $0 > t }).bn })
    case 11:
      let t = r.range(2, 9)
      return OpSpec(kind: "allSatisfy", text: ".allSatisfy { $0 < \(t) }.map { $0 ? 1 : 0 }",
                    build: { p, _ in p.allSatisfy { $0 < t }.b },
                    just: { $0.allSatisfy { $0 < t }.bn }, seq: { $0.allSatisfy { $0 < t }.bn })
    case 12:
      let m = r.range(3, 5), k = r.int(m), t = r.range(3, 8)
      switch r.int(4) {
      case 0:
        return OpSpec(kind: "tryFirst(where:)",
                      text: ".tryFirst(where: { if $0 % \(m) == \(k) { throw E.a }; return $0 > \(t) })",
                      build: { p, _ in p.tryFirst(where: { v -> Bool in if v % m == k { throw E.a }; return v > t }).t })
      case 1:
        return OpSpec(kind: "tryLast(where:)",
                      text: ".tryLast(where: { if $0 % \(m) == \(k) { throw E.a }; return $0 > \(t) })",
                      build: { p, _ in p.tryLast(where: { v -> Bool in if v % m == k { throw E.a }; return v > t }).t })
      case 2:
        return OpSpec(kind: "tryContains(where:)",
                      text: ".tryContains(where: { if $0 % \(m) == \(k) { throw E.a }; return $0 > \(t) }).map { $0 ? 1 : 0 }",
                      build: { p, _ in
                        p.tryContains(where: { v -> Bool in if v % m == k { throw E.a }; return v > t }).bt
                      })
      default:
        return OpSpec(kind: "tryAllSatisfy",
                      text: ".tryAllSatisfy { if $0 % \(m) == \(k) { throw E.a }; return $0 < \(t) }.map { $0 ? 1 : 0 }",
                      build: { p, _ in
                        p.tryAllSatisfy { v -> Bool in if v % m == k { throw E.a }; return v < t }.bt
                      })
      }
    case 13:
      let m = r.range(3, 5), k = r.int(m)
      if r.chance(50) {
        return OpSpec(kind: "tryMin(by:)", text: ".tryMin(by: { if $1 % \(m) == \(k) { throw E.c }; return $0 < $1 })",
                      build: { p, _ in p.tryMin(by: { x, y -> Bool in if y % m == k { throw E.c }; return x < y }).t })
      }
      return OpSpec(kind: "tryMax(by:)", text: ".tryMax(by: { if $1 % \(m) == \(k) { throw E.c }; return $0 < $1 })",
                    build: { p, _ in p.tryMax(by: { x, y -> Bool in if y % m == k { throw E.c }; return x < y }).t })
    case 14:
      return OpSpec(kind: "ignoreOutput", text: ".ignoreOutput().map { _ in 0 }",
                    build: { p, _ in p.ignoreOutput().map { _ -> Int in 0 }.e },
                    just: { $0.ignoreOutput().map { _ -> Int in 0 }.n },
                    seq: { $0.ignoreOutput().map { _ -> Int in 0 }.n })
    case 15:
      let x = r.value()
      return OpSpec(kind: "replaceEmpty", text: ".replaceEmpty(with: \(x))",
                    build: { p, _ in p.replaceEmpty(with: x).e }, just: { $0.replaceEmpty(with: x).n })
    case 16:
      let i = r.range(0, 3)
      return OpSpec(kind: "output(at:)", text: ".output(at: \(i))",
                    build: { p, _ in p.output(at: i).e }, just: { $0.output(at: i).n }, seq: { $0.output(at: i).n })
    default:
      let lo = r.range(0, 2), hi = lo + r.range(0, 3)
      if r.chance(50) {
        // (no Sequence overload here: Publishers.Sequence.output(in:) slices the collection and
        // traps, in Combine too, when the range is out of bounds)
        return OpSpec(kind: "output(in:)", text: ".output(in: \(lo)..<\(hi))",
                      build: { p, _ in p.output(in: lo..<hi).e },
                      just: { $0.output(in: lo..<hi).n })
      }
      return OpSpec(kind: "output(in:)", text: ".output(in: \(lo)...\(hi))",
                    build: { p, _ in p.output(in: lo...hi).e }, just: { $0.output(in: lo...hi).n })
    }
  }

  // Errors, retry, flattening, combining, buffering, concatenation and sharing.
  mutating func structuralOp(_ which: Int) -> OpSpec {
    switch which {
    case 0:
      let x = r.value()
      return OpSpec(kind: "replaceError", text: ".replaceError(with: \(x)).setFailureType(to: E.self)",
                    build: { p, _ in p.replaceError(with: x).n })
    case 1:
      return OpSpec(kind: "mapError", text: ".mapError { a->b, b->c, c->a }",
                    build: { p, _ in p.mapError(rotate).e })
    case 2:
      let x = r.value(), xs = r.values(0, 3)
      switch r.int(6) {
      case 0:
        return OpSpec(kind: "catch", text: ".catch { _ in Just(\(x)) }.setFailureType(to: E.self)",
                      build: { p, _ in p.catch { _ in Just(x) }.n })
      case 1:
        return OpSpec(kind: "catch", text: ".catch { _ in \(list(xs)).publisher }.setFailureType(to: E.self)",
                      build: { p, _ in p.catch { _ in xs.publisher }.n })
      case 2:
        return OpSpec(kind: "catch", text: ".catch { _ in Fail(error: E.c) }",
                      build: { p, _ in p.catch { _ in Fail<Int, E>(error: .c) }.e })
      case 3:
        return OpSpec(kind: "catch", text: ".catch { _ in Empty() }",
                      build: { p, _ in p.catch { _ in Empty<Int, E>() }.e })
      case 4:
        return OpSpec(kind: "catch", text: ".catch { $0 == .a ? Just(\(x)) : Fail(error: $0) }",
                      build: { p, _ in
                        p.catch { err -> P in
                          err == .a ? Just(x).setFailureType(to: E.self).eraseToAnyPublisher()
                            : Fail(error: err).eraseToAnyPublisher()
                        }.e
                      })
      default:
        let i = newAux()
        return OpSpec(kind: "catch", text: ".catch { _ in aux\(i) }",
                      build: { p, ctx in let s = ctx.aux[i]; return p.catch { _ in s }.e })
      }
    case 3:
      let x = r.value()
      return OpSpec(kind: "tryCatch", text: ".tryCatch { if $0 == .b { throw E.c }; return Just(\(x)) }",
                    build: { p, _ in
                      p.tryCatch { err -> Just<Int> in if err == .b { throw E.c }; return Just(x) }.t
                    })
    case 4, 5:
      let n = r.range(0, 3), k = r.range(0, 3)
      if k == 0 {
        return OpSpec(kind: "retry", text: ".retry(\(n))", build: { p, _ in p.retry(n).e })
      }
      let err = r.error()
      return OpSpec(kind: "retry",
                    text: ".failingFirst(\(k), E.\(ename(err))).retry(\(n))",
                    build: { p, _ in
                      let counter = Counter()
                      return Deferred { () -> P in
                        counter.n += 1
                        return counter.n <= k ? Fail(error: err).eraseToAnyPublisher() : p
                      }.retry(n).e
                    })
    case 6, 7, 8:
      let d: D = r.chance(50) ? .max(r.range(1, 2)) : .unlimited
      let inner = self.inner()
      return OpSpec(kind: "flatMap", text: ".flatMap(maxPublishers: \(d.text)) \(inner.text)",
                    build: { p, ctx in p.flatMap(maxPublishers: d.demand) { v in inner.make(v, ctx) }.e })
    case 9, 10:
      let inner = self.inner()
      return OpSpec(kind: "switchToLatest", text: ".map \(inner.text).switchToLatest()",
                    build: { p, ctx in p.map { v in inner.make(v, ctx) }.switchToLatest().e })
    case 11, 12:
      let a = r.range(0, 3), xs = r.values(0, 4)
      switch r.int(5) {
      case 0:
        return OpSpec(kind: "zip", text: ".zipWithSelf(\(a)).map { $0 * 100 + $1 }",
                      build: { p, _ in p.zip(p.map { $0 &+ a }).map { t in t.0 &* 100 &+ t.1 }.e })
      case 1:
        return OpSpec(kind: "zip", text: ".zipShared(\(a)).map { $0 * 100 + $1 }",
                      build: { p, _ in
                        let s = p.share()
                        return s.zip(s.map { $0 &+ a }).map { t in t.0 &* 100 &+ t.1 }.e
                      })
      case 2:
        return OpSpec(kind: "zip", text: ".zip(\(list(xs)).publisher.setFailureType(to: E.self)).map { $0 * 100 + $1 }",
                      build: { p, _ in p.zip(xs.publisher.setFailureType(to: E.self)).map { t in t.0 &* 100 &+ t.1 }.e })
      case 3:
        let i = newAux()
        return OpSpec(kind: "zip", text: ".zip(aux\(i)).map { $0 * 100 + $1 }",
                      build: { p, ctx in p.zip(ctx.aux[i]).map { t in t.0 &* 100 &+ t.1 }.e })
      default:
        let i = newAux()
        return OpSpec(kind: "zip", text: ".zip(aux\(i), \(list(xs)).publisher.setFailureType(to: E.self)).map { $0 * 10000 + $1 * 100 + $2 }",
                      build: { p, ctx in
                        p.zip(ctx.aux[i], xs.publisher.setFailureType(to: E.self))
                          .map { t in t.0 &* 10000 &+ t.1 &* 100 &+ t.2 }.e
                      })
      }
    case 13, 14:
      let size = r.range(1, 3)
      let keepFull = r.chance(50)
      let pf: Publishers.PrefetchStrategy = keepFull ? .keepFull : .byRequest
      let pfText = keepFull ? ".keepFull" : ".byRequest"
      let w = r.int(10)
      let wText = w < 4 ? ".dropNewest" : w < 8 ? ".dropOldest" : ".customError { E.c }"
      return OpSpec(kind: "buffer", text: ".buffer(size: \(size), prefetch: \(pfText), whenFull: \(wText))",
                    build: { p, _ in
                      let strategy: Publishers.BufferingStrategy<E> =
                        w < 4 ? .dropNewest : w < 8 ? .dropOldest : .customError({ E.c })
                      return p.buffer(size: size, prefetch: pf, whenFull: strategy).e
                    })
    case 15:
      let xs = r.values(1, 2)
      if r.chance(50) {
        return OpSpec(kind: "append", text: ".append(\(list(xs)))",
                      build: { p, _ in p.append(xs).e }, seq: { $0.append(xs).n })
      }
      return OpSpec(kind: "prepend", text: ".prepend(\(list(xs)))",
                    build: { p, _ in p.prepend(xs).e }, seq: { $0.prepend(xs).n })
    case 16:
      let i = newAux()
      switch r.int(3) {
      case 0:
        return OpSpec(kind: "append", text: ".append(aux\(i))", build: { p, ctx in p.append(ctx.aux[i]).e })
      case 1:
        return OpSpec(kind: "prepend", text: ".prepend(aux\(i))", build: { p, ctx in p.prepend(ctx.aux[i]).e })
      default:
        let x = r.value()
        return OpSpec(kind: "append", text: ".append(Just(\(x)).setFailureType(to: E.self))",
                      build: { p, _ in p.append(Just(x).setFailureType(to: E.self)).e })
      }
    case 17:
      let side = newSide()
      return OpSpec(kind: "share", text: ".share() /* + subscriber s\(side) */",
                    build: { p, ctx in
                      let s = p.share().e
                      ctx.sidePubs[side] = s
                      return s
                    })
    case 18:
      let side = newSide()
      let auto = r.chance(30)
      let conn = auto ? -1 : newConn()
      let form = r.int(3)
      let x = r.value()
      let subjectText = form == 0 ? "multicast(subject: PassthroughSubject())"
        : form == 1 ? "multicast(subject: CurrentValueSubject(\(x)))" : "multicast { PassthroughSubject() }"
      let tail = auto ? ".autoconnect()" : " /* connect: m\(conn) */"
      return OpSpec(kind: "multicast", text: ".\(subjectText)\(tail) /* + subscriber s\(side) */",
                    build: { p, ctx in
                      switch form {
                      case 0: return connectable(p.multicast(subject: PassthroughSubject<Int, E>()), ctx, side, conn)
                      case 1: return connectable(p.multicast(subject: CurrentValueSubject<Int, E>(x)), ctx, side, conn)
                      default: return connectable(p.multicast { PassthroughSubject<Int, E>() }, ctx, side, conn)
                      }
                    })
    case 19:
      let i = newAux()
      if r.chance(50) {
        return OpSpec(kind: "prefix(untilOutputFrom:)", text: ".prefix(untilOutputFrom: aux\(i))",
                      build: { p, ctx in p.prefix(untilOutputFrom: ctx.aux[i]).e })
      }
      return OpSpec(kind: "drop(untilOutputFrom:)", text: ".drop(untilOutputFrom: aux\(i))",
                    build: { p, ctx in p.drop(untilOutputFrom: ctx.aux[i]).e })
    default:
      return OpSpec(kind: "Deferred", text: ".deferred()", build: { p, _ in Deferred { p }.e })
    }
  }

  // MARK: Sources, demand and script

  enum Source {
    case passthrough
    case currentValue(Int)
    case range(Int, Int)
    case array([Int], concrete: Bool)
    case just(Int, concrete: Bool)
    case empty(Bool)
    case fail(E)
    case record([Int], E?)
    case future(Int?)
  }

  mutating func source() -> Source {
    switch r.int(12) {
    case 0, 1, 2: return .passthrough
    case 3, 4: return .currentValue(r.value())
    case 5: return .range(r.range(0, 3), r.range(0, 5))
    case 6: return .array(r.values(0, 4), concrete: r.chance(60))
    case 7: return .just(r.value(), concrete: r.chance(60))
    case 8: return r.chance(50) ? .empty(r.chance(70)) : .fail(r.error())
    case 9: return .record(r.values(0, 4), r.chance(60) ? nil : r.error())
    case 10: return .future(r.chance(40) ? r.value() : nil)
    default: return r.chance(50) ? .passthrough : .range(0, r.range(1, 6))
    }
  }

  mutating func mainDemand() -> DemandSpec {
    var d = DemandSpec()
    switch r.int(10) {
    case 0, 1: d.initial = .none
    case 2..<7: d.initial = .max(r.range(1, 3))
    default: d.initial = .unlimited
    }
    d.perValue = (0..<r.range(1, 4)).map { _ in
      switch r.int(20) {
      case 0..<11: return D.none
      case 11..<17: return D.max(1)
      case 17: return D.max(2)
      default: return D.unlimited
      }
    }
    if r.chance(8) { d.cancelAt = r.range(1, 3) }
    if r.chance(8) { d.requestAt = (r.range(1, 3), r.chance(70) ? .max(1) : .unlimited) }
    return d
  }
}

func connectable<C: ConnectablePublisher>(_ c: C, _ ctx: Ctx, _ side: Int, _ conn: Int) -> P
where C.Output == Int, C.Failure == E {
  if conn < 0 {
    let a = c.autoconnect().e
    ctx.sidePubs[side] = a
    return a
  }
  ctx.connectables[conn] = { c.connect() }
  let e = c.e
  ctx.sidePubs[side] = e
  return e
}

enum Step {
  case subscribe
  case send(Int), finish, fail(E)
  case request(D)
  case cancel
  case attach(Int)
  case connect(Int)
  case auxSend(Int, Int), auxFinish(Int), auxFail(Int, E)
  case innerSend(Int, Int), innerFinish(Int), innerFail(Int, E)
  case resolve(Int), resolveFail(E)

  var text: String {
    switch self {
    case .subscribe: return "subscribe"
    case .send(let v): return "send(\(v))"
    case .finish: return "send(completion: .finished)"
    case .fail(let e): return "send(completion: .failure(.\(ename(e))))"
    case .request(let d): return "request(\(d.text))"
    case .cancel: return "cancel"
    case .attach(let i): return "s\(i) subscribes"
    case .connect(let i): return "m\(i).connect()"
    case .auxSend(let i, let v): return "aux\(i).send(\(v))"
    case .auxFinish(let i): return "aux\(i).send(completion: .finished)"
    case .auxFail(let i, let e): return "aux\(i).send(completion: .failure(.\(ename(e))))"
    case .innerSend(let i, let v): return "inner\(i).send(\(v))"
    case .innerFinish(let i): return "inner\(i).send(completion: .finished)"
    case .innerFail(let i, let e): return "inner\(i).send(completion: .failure(.\(ename(e))))"
    case .resolve(let v): return "promise(.success(\(v)))"
    case .resolveFail(let e): return "promise(.failure(.\(ename(e))))"
    }
  }
}

struct Case {
  var source: Gen.Source
  var ops: [OpSpec]
  var demand: DemandSpec
  var steps: [Step]
  var auxCount: Int
  var sideSpecs: [DemandSpec]
  var connCount: Int
}

func makeCase(seed: UInt64) -> Case {
  var g = Gen(seed: seed)
  let source = g.source()
  let ops = (0..<g.r.range(1, 6)).map { _ in g.op() }
  let demand = g.mainDemand()

  // The event script.
  var isSubject = false, lateFuture = false
  switch source {
  case .passthrough, .currentValue: isSubject = true
  case .future(let v): lateFuture = v == nil
  default: break
  }
  var body: [Step] = []
  var completed = false, resolved = false, cancelled = false
  let allowCancel = g.r.chance(20)
  let n = g.r.range(1, 8)
  for _ in 0..<n {
    var kinds: [(Int, Int)] = [(0, 2)]  // (kind, weight): request
    if isSubject { kinds.append((1, 6)) }
    if isSubject && !completed { kinds.append((2, 1)) }
    if allowCancel && !cancelled { kinds.append((3, 1)) }
    if g.auxCount > 0 { kinds.append((4, 3)) }
    if g.innerSubjects { kinds.append((5, 3)) }
    if lateFuture && !resolved { kinds.append((6, 2)) }
    var w = g.r.int(kinds.reduce(0) { $0 + $1.1 })
    var kind = 0
    for (k, weight) in kinds {
      if w < weight { kind = k; break }
      w -= weight
    }
    switch kind {
    case 0: body.append(.request(g.demand()))
    case 1: body.append(.send(g.r.value()))
    case 2:
      completed = true
      body.append(g.r.chance(70) ? .finish : .fail(g.r.error()))
    case 3:
      cancelled = true
      body.append(.cancel)
    case 4:
      let i = g.r.int(g.auxCount)
      switch g.r.int(6) {
      case 0: body.append(.auxFinish(i))
      case 1: body.append(.auxFail(i, g.r.error()))
      default: body.append(.auxSend(i, g.r.value()))
      }
    case 5:
      let i = g.r.int(3)
      switch g.r.int(6) {
      case 0: body.append(.innerFinish(i))
      case 1: body.append(.innerFail(i, g.r.error()))
      default: body.append(.innerSend(i, g.r.value()))
      }
    default:
      resolved = true
      body.append(g.r.chance(75) ? .resolve(g.r.value()) : .resolveFail(g.r.error()))
    }
  }
  if isSubject && !completed && g.r.chance(50) { body.append(g.r.chance(70) ? .finish : .fail(g.r.error())) }
  if lateFuture && !resolved && g.r.chance(70) { body.append(.resolve(g.r.value())) }
  let subAt = g.r.chance(75) ? 0 : g.r.range(0, min(2, body.count))
  body.insert(.subscribe, at: subAt)
  for i in 0..<g.sideSpecs.count { body.insert(.attach(i), at: g.r.range(0, body.count)) }
  for i in 0..<g.connCount where g.r.chance(90) { body.insert(.connect(i), at: g.r.range(0, body.count)) }

  return Case(source: source, ops: ops, demand: demand, steps: body, auxCount: g.auxCount,
              sideSpecs: g.sideSpecs, connCount: g.connCount)
}

// MARK: - Running a case

func kept<T>(_ xs: [T], _ mask: UInt64?) -> [T] {
  guard let mask else { return xs }
  return xs.enumerated().filter { $0.offset < 64 && mask & (1 << UInt64($0.offset)) != 0 }.map(\.element)
}

func run(seed: UInt64, opMask: UInt64?, stepMask: UInt64?, demandFlags: UInt64 = 0)
  -> (desc: String, log: String, shape: String)
{
  var c = makeCase(seed: seed)
  // demand simplifications the driver tries while shrinking a case
  if demandFlags & 1 != 0 { c.demand.cancelAt = nil }
  if demandFlags & 2 != 0 { c.demand.requestAt = nil }
  if demandFlags & 4 != 0 { c.demand.perValue = [.none] }
  if demandFlags & 8 != 0 { c.demand.initial = .unlimited }
  let ops = kept(c.ops, opMask)
  let steps = kept(c.steps, stepMask)
  let ctx = Ctx()
  ctx.aux = (0..<c.auxCount).map { _ in PassthroughSubject<Int, E>() }
  ctx.sidePubs = Array(repeating: nil, count: c.sideSpecs.count)
  ctx.sideSpecs = c.sideSpecs
  ctx.connectables = Array(repeating: nil, count: c.connCount)

  // The source; a concrete Just or Sequence takes the first operator through its own overload.
  var rest = ops[...]
  var pub: P
  var text: String
  switch c.source {
  case .passthrough:
    let s = PassthroughSubject<Int, E>()
    ctx.passthrough = s
    pub = s.eraseToAnyPublisher()
    text = "PassthroughSubject<Int, E>()"
  case .currentValue(let x):
    let s = CurrentValueSubject<Int, E>(x)
    ctx.current = s
    pub = s.eraseToAnyPublisher()
    text = "CurrentValueSubject<Int, E>(\(x))"
  case .range(let lo, let k):
    pub = (lo..<(lo + k)).publisher.setFailureType(to: E.self).eraseToAnyPublisher()
    text = "(\(lo)..<\(lo + k)).publisher.setFailureType(to: E.self)"
  case .array(let xs, let concrete):
    if concrete, let first = rest.first, let sp = first.seq {
      pub = sp(xs.publisher)
      text = "\(list(xs)).publisher"
    } else {
      pub = xs.publisher.setFailureType(to: E.self).eraseToAnyPublisher()
      text = "\(list(xs)).publisher.setFailureType(to: E.self)"
    }
  case .just(let x, let concrete):
    if concrete, let first = rest.first, let sp = first.just {
      pub = sp(Just(x))
      text = "Just(\(x))"
    } else {
      pub = Just(x).setFailureType(to: E.self).eraseToAnyPublisher()
      text = "Just(\(x)).setFailureType(to: E.self)"
    }
  case .empty(let immediately):
    pub = Empty<Int, E>(completeImmediately: immediately).eraseToAnyPublisher()
    text = immediately ? "Empty<Int, E>()" : "Empty<Int, E>(completeImmediately: false)"
  case .fail(let e):
    pub = Fail<Int, E>(error: e).eraseToAnyPublisher()
    text = "Fail<Int, E>(error: .\(ename(e)))"
  case .record(let xs, let e):
    let completion: Subscribers.Completion<E> = e.map { .failure($0) } ?? .finished
    pub = Record<Int, E>(output: xs, completion: completion).eraseToAnyPublisher()
    text = "Record<Int, E>(output: \(list(xs)), completion: \(e.map { ".failure(.\(ename($0)))" } ?? ".finished"))"
  case .future(let v):
    if let v {
      pub = Future<Int, E> { $0(.success(v)) }.eraseToAnyPublisher()
      text = "Future<Int, E> { $0(.success(\(v))) }"
    } else {
      pub = Future<Int, E> { promise in ctx.promise = promise }.eraseToAnyPublisher()
      text = "Future<Int, E> { promise in /* resolved by the script */ }"
    }
  }
  var concreteUsed = false
  if case .array(_, true) = c.source, let first = rest.first, first.seq != nil { concreteUsed = true }
  if case .just(_, true) = c.source, let first = rest.first, first.just != nil { concreteUsed = true }
  if concreteUsed { text += rest.first!.text; rest = rest.dropFirst() }
  for op in rest {
    pub = op.build(pub, ctx)
    text += op.text
  }

  let main = Recorder(tag: "", spec: c.demand, log: ctx.log)
  ctx.main = main
  for (i, step) in steps.enumerated() {
    ctx.log.step = i
    switch step {
    case .subscribe: pub.subscribe(main)
    case .send(let v):
      ctx.passthrough?.send(v)
      ctx.current?.send(v)
    case .finish:
      ctx.passthrough?.send(completion: .finished)
      ctx.current?.send(completion: .finished)
    case .fail(let e):
      ctx.passthrough?.send(completion: .failure(e))
      ctx.current?.send(completion: .failure(e))
    case .request(let d): main.request(d.demand)
    case .cancel: main.subscription?.cancel()
    case .attach(let k):
      if let p = ctx.sidePubs[k] {
        let rec = Recorder(tag: "s\(k):", spec: ctx.sideSpecs[k], log: ctx.log)
        ctx.sideRecs.append(rec)
        p.subscribe(rec)
      }
    case .connect(let k):
      if let c = ctx.connectables[k] { ctx.connections.append(c()) }
    case .auxSend(let k, let v): ctx.aux[k].send(v)
    case .auxFinish(let k): ctx.aux[k].send(completion: .finished)
    case .auxFail(let k, let e): ctx.aux[k].send(completion: .failure(e))
    case .innerSend(let k, let v): if k < ctx.inners.count { ctx.inners[k].send(v) }
    case .innerFinish(let k): if k < ctx.inners.count { ctx.inners[k].send(completion: .finished) }
    case .innerFail(let k, let e): if k < ctx.inners.count { ctx.inners[k].send(completion: .failure(e)) }
    case .resolve(let v): ctx.promise?(.success(v))
    case .resolveFail(let e): ctx.promise?(.failure(e))
    }
  }

  var desc = text + " || demand: " + c.demand.text
  for (k, s) in c.sideSpecs.enumerated() { desc += " || s\(k): " + s.text }
  desc += " || script: " + steps.map(\.text).joined(separator: "; ")
  let log = ctx.log.tokens.isEmpty ? "-" : ctx.log.tokens.joined(separator: " ")
  let shape = "\(c.ops.count) \(c.steps.count) " + ops.map(\.kind).joined(separator: ",")
  return (desc, log, shape)
}

// MARK: - Command line

func mask(_ s: Substring) -> UInt64? { s == "-" ? nil : UInt64(s, radix: 16) }

let args = CommandLine.arguments
if args.count == 2 && args[1] == "--cases" {
  while let line = readLine() {
    let f = line.split(separator: " ")
    guard f.count == 3 || f.count == 4, let seed = UInt64(f[0]) else { continue }
    let flags = f.count == 4 ? UInt64(f[3], radix: 16) ?? 0 : 0
    let r = run(seed: seed, opMask: mask(f[1]), stepMask: mask(f[2]), demandFlags: flags)
    print(f.joined(separator: "/") + "\t\(r.desc)\t\(r.log)\t\(r.shape)")
  }
} else if args.count == 3, let first = UInt64(args[1]), let count = UInt64(args[2]) {
  for seed in first..<(first + count) {
    let r = run(seed: seed, opMask: nil, stepMask: nil)
    print("\(seed)\t\(r.desc)\t\(r.log)")
  }
} else {
  print("usage: Fuzz FIRST_SEED COUNT | Fuzz --cases < 'SEED OPMASK STEPMASK' lines")
}

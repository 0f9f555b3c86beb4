extension Publishers {
  /// A publisher that receives and combines the latest elements from two publishers.
  ///
  /// Once every upstream has published an element, it publishes a tuple of the latest element
  /// of each whenever any upstream publishes. A request from the subscriber is passed to every
  /// upstream, as in Combine; a combination made while the subscriber has no demand is dropped
  /// (the latest elements are kept). It finishes once every upstream has finished, and fails
  /// with the first upstream failure (cancelling the others).
  ///
  /// ```swift
  /// let numbers = PassthroughSubject<Int, Never>()
  /// let letters = PassthroughSubject<String, Never>()
  /// let cancellable = Publishers.CombineLatest(numbers, letters)
  ///     .sink { print($0) }
  /// numbers.send(1)
  /// letters.send("a")   // prints (1, "a")
  /// numbers.send(2)     // prints (2, "a")
  /// ```
  public struct CombineLatest<A, B>: Publisher
  where A: Publisher, B: Publisher, A.Failure == B.Failure {
    /// The kind of values published by this publisher: one value from each upstream, as a tuple.
    public typealias Output = (A.Output, B.Output)
    /// The kind of errors this publisher might publish.
    public typealias Failure = A.Failure

    /// The first upstream publisher.
    public let a: A

    /// The second upstream publisher.
    public let b: B

    /// Creates a publisher that applies the combineLatest function to two upstream publishers.
    @inlinable
    public init(_ a: A, _ b: B) {
      self.a = a
      self.b = b
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inlinable @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      let strategy = CombineLatestStrategy(slots: Slots2<A.Output, B.Output>())
      CombiningSubscription.subscribe(subscriber, strategy: strategy, upstreamCount: 2)
        .attach(a)
        .attach(b)
    }
  }

  /// A publisher created by applying the combineLatest function to three upstream publishers.
  ///
  /// It behaves as ``Publishers/CombineLatest``, with three upstreams.
  ///
  /// ```swift
  /// let cancellable = Publishers.CombineLatest3(p1, p2, p3)
  ///     .sink { print($0) }
  /// ```
  public struct CombineLatest3<A, B, C>: Publisher
  where A: Publisher, B: Publisher, C: Publisher, A.Failure == B.Failure, B.Failure == C.Failure {
    /// The kind of values published by this publisher: one value from each upstream, as a tuple.
    public typealias Output = (A.Output, B.Output, C.Output)
    /// The kind of errors this publisher might publish.
    public typealias Failure = A.Failure

    /// The first upstream publisher.
    public let a: A

    /// The second upstream publisher.
    public let b: B

    /// The third upstream publisher.
    public let c: C

    /// Creates a publisher that applies the combineLatest function to three upstream publishers.
    public init(_ a: A, _ b: B, _ c: C) {
      self.a = a
      self.b = b
      self.c = c
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      let strategy = CombineLatestStrategy(slots: Slots3<A.Output, B.Output, C.Output>())
      CombiningSubscription.subscribe(subscriber, strategy: strategy, upstreamCount: 3)
        .attach(a)
        .attach(b)
        .attach(c)
    }
  }

  /// A publisher created by applying the combineLatest function to four upstream publishers.
  ///
  /// It behaves as ``Publishers/CombineLatest``, with four upstreams.
  ///
  /// ```swift
  /// let cancellable = Publishers.CombineLatest4(p1, p2, p3, p4)
  ///     .sink { print($0) }
  /// ```
  public struct CombineLatest4<A, B, C, D>: Publisher
  where
    A: Publisher, B: Publisher, C: Publisher, D: Publisher, A.Failure == B.Failure, B.Failure == C.Failure,
    C.Failure == D.Failure
  {
    /// The kind of values published by this publisher: one value from each upstream, as a tuple.
    public typealias Output = (A.Output, B.Output, C.Output, D.Output)
    /// The kind of errors this publisher might publish.
    public typealias Failure = A.Failure

    /// The first upstream publisher.
    public let a: A

    /// The second upstream publisher.
    public let b: B

    /// The third upstream publisher.
    public let c: C

    /// The fourth upstream publisher.
    public let d: D

    /// Creates a publisher that applies the combineLatest function to four upstream publishers.
    @inlinable
    public init(_ a: A, _ b: B, _ c: C, _ d: D) {
      self.a = a
      self.b = b
      self.c = c
      self.d = d
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inlinable @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      let strategy = CombineLatestStrategy(slots: Slots4<A.Output, B.Output, C.Output, D.Output>())
      CombiningSubscription.subscribe(subscriber, strategy: strategy, upstreamCount: 4)
        .attach(a)
        .attach(b)
        .attach(c)
        .attach(d)
    }
  }
}

extension Publishers.CombineLatest: Equatable where A: Equatable, B: Equatable {
  /// Two combinations are equal when their upstreams are equal.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.a == rhs.a && lhs.b == rhs.b
  }
}

extension Publishers.CombineLatest3: Equatable where A: Equatable, B: Equatable, C: Equatable {
  /// Two combinations are equal when their upstreams are equal.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.a == rhs.a && lhs.b == rhs.b && lhs.c == rhs.c
  }
}

extension Publishers.CombineLatest4: Equatable where A: Equatable, B: Equatable, C: Equatable, D: Equatable {
  /// Two combinations are equal when their upstreams are equal.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.a == rhs.a && lhs.b == rhs.b && lhs.c == rhs.c && lhs.d == rhs.d
  }
}

extension Publisher {
  /// Subscribes to another publisher and publishes a tuple of the latest element of each whenever
  /// any of them publishes.
  ///
  /// ```swift
  /// let cancellable = p1.combineLatest(p2)
  ///     .sink { print($0) }
  /// ```
  @inlinable
  public func combineLatest<P>(_ other: P) -> Publishers.CombineLatest<Self, P>
  where P: Publisher, Self.Failure == P.Failure {
    Publishers.CombineLatest(self, other)
  }

  /// Subscribes to another publisher and publishes a transformation of the latest element of each
  /// whenever any of them publishes.
  ///
  /// ```swift
  /// let cancellable = p1.combineLatest(p2) { a, b in "\(a)\(b)" }
  ///     .sink { print($0) }
  /// ```
  @inlinable
  public func combineLatest<P, T>(
    _ other: P, _ transform: @escaping (Output, P.Output) -> T
  ) -> Publishers.Map<Publishers.CombineLatest<Self, P>, T>
  where P: Publisher, Self.Failure == P.Failure {
    Publishers.CombineLatest(self, other).map { callOutOfLine(transform, $0.0, $0.1) }
  }

  /// Subscribes to two other publishers and publishes a tuple of the latest element of each whenever
  /// any of them publishes.
  ///
  /// ```swift
  /// let cancellable = p1.combineLatest(p2, p3)
  ///     .sink { print($0) }
  /// ```
  public func combineLatest<P, Q>(_ publisher1: P, _ publisher2: Q) -> Publishers.CombineLatest3<Self, P, Q>
  where P: Publisher, Q: Publisher, Self.Failure == P.Failure, P.Failure == Q.Failure {
    Publishers.CombineLatest3(self, publisher1, publisher2)
  }

  /// Subscribes to two other publishers and publishes a transformation of the latest element of each
  /// whenever any of them publishes.
  ///
  /// ```swift
  /// let cancellable = p1.combineLatest(p2, p3) { a, b, c in "\(a)\(b)\(c)" }
  ///     .sink { print($0) }
  /// ```
  public func combineLatest<P, Q, T>(
    _ publisher1: P, _ publisher2: Q, _ transform: @escaping (Output, P.Output, Q.Output) -> T
  ) -> Publishers.Map<Publishers.CombineLatest3<Self, P, Q>, T>
  where P: Publisher, Q: Publisher, Self.Failure == P.Failure, P.Failure == Q.Failure {
    Publishers.CombineLatest3(self, publisher1, publisher2).map { callOutOfLine(transform, $0.0, $0.1, $0.2) }
  }

  /// Subscribes to three other publishers and publishes a tuple of the latest element of each whenever
  /// any of them publishes.
  ///
  /// ```swift
  /// let cancellable = p1.combineLatest(p2, p3, p4)
  ///     .sink { print($0) }
  /// ```
  public func combineLatest<P, Q, R>(
    _ publisher1: P, _ publisher2: Q, _ publisher3: R
  ) -> Publishers.CombineLatest4<Self, P, Q, R>
  where
    P: Publisher, Q: Publisher, R: Publisher, Self.Failure == P.Failure, P.Failure == Q.Failure, Q.Failure == R.Failure
  {
    Publishers.CombineLatest4(self, publisher1, publisher2, publisher3)
  }

  /// Subscribes to three other publishers and publishes a transformation of the latest element of each
  /// whenever any of them publishes.
  ///
  /// ```swift
  /// let cancellable = p1.combineLatest(p2, p3, p4) { a, b, c, d in "\(a)\(b)\(c)\(d)" }
  ///     .sink { print($0) }
  /// ```
  @inlinable
  public func combineLatest<P, Q, R, T>(
    _ publisher1: P, _ publisher2: Q, _ publisher3: R,
    _ transform: @escaping (Output, P.Output, Q.Output, R.Output) -> T
  ) -> Publishers.Map<Publishers.CombineLatest4<Self, P, Q, R>, T>
  where
    P: Publisher, Q: Publisher, R: Publisher, Self.Failure == P.Failure, P.Failure == Q.Failure, Q.Failure == R.Failure
  {
    Publishers.CombineLatest4(self, publisher1, publisher2, publisher3).map {
      callOutOfLine(transform, $0.0, $0.1, $0.2, $0.3)
    }
  }
}

/// Combines the latest values: an output takes the latest value of every upstream, once each
/// has one.
@usableFromInline
struct CombineLatestStrategy<Slots: SlotSet>: CombiningStrategy {
  @usableFromInline
  var slots: Slots

  @inlinable
  init(slots: Slots) {
    self.slots = slots
  }

  @usableFromInline
  static var description: String { "CombineLatest" }
  @inlinable
  static var requestsOneAtATime: Bool { false }
  @inlinable
  static var dropsOutputWithoutDemand: Bool { true }
  @inlinable
  static var returnsDemandToSender: Bool { false }
  @inlinable
  static var cancelsFailedUpstream: Bool { false }
  @inlinable
  static var exhaustsOnValues: Bool { false }

  @inlinable @inline(__always)
  mutating func combine<Input>(_ value: Input, from index: Int) -> Slots.Output? {
    slots.combineLatest(value, at: index)
  }

  /// As in Combine: every upstream must finish, even one that never published.
  @inlinable
  func isExhausted(finished: [Bool], finishedCount: Int) -> Bool {
    finishedCount == finished.count
  }

  @usableFromInline
  mutating func release() {
    slots.removeAll()
  }
}

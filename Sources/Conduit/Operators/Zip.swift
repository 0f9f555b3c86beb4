extension Publishers {
  /// A publisher created by applying the zip function to two upstream publishers.
  ///
  /// It waits until every upstream has published an element, then publishes the oldest
  /// unconsumed element of each together as a tuple; elements wait, per upstream, until they
  /// can be paired. It finishes as soon as an upstream has finished and none of its elements is
  /// left to pair (cancelling the others), and fails with the first upstream failure. A request
  /// from the subscriber is passed to every upstream, as in Combine.
  ///
  /// ```swift
  /// let numbers = PassthroughSubject<Int, Never>()
  /// let letters = PassthroughSubject<String, Never>()
  /// let cancellable = Publishers.Zip(numbers, letters)
  ///     .sink { print($0) }
  /// numbers.send(1)
  /// numbers.send(2)
  /// letters.send("a")   // prints (1, "a")
  /// ```
  public struct Zip<A, B>: Publisher
  where A: Publisher, B: Publisher, A.Failure == B.Failure {
    /// The kind of values published by this publisher: one value from each upstream, as a tuple.
    public typealias Output = (A.Output, B.Output)
    /// The kind of errors this publisher might publish.
    public typealias Failure = A.Failure

    /// The first upstream publisher.
    public let a: A

    /// The second upstream publisher.
    public let b: B

    /// Creates a publisher that applies the zip function to two upstream publishers.
    @inlinable
    public init(_ a: A, _ b: B) {
      self.a = a
      self.b = b
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inlinable @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      let strategy = ZipStrategy(slots: Slots2<A.Output, B.Output>())
      // As in Combine, every upstream is subscribed before the subscriber has its subscription.
      CombiningSubscription.prepare(subscriber, strategy: strategy, upstreamCount: 2)
        .attach(a)
        .attach(b)
        .handDown()
    }
  }

  /// A publisher created by applying the zip function to three upstream publishers.
  ///
  /// It behaves as ``Publishers/Zip``, with three upstreams.
  ///
  /// ```swift
  /// let cancellable = Publishers.Zip3(p1, p2, p3)
  ///     .sink { print($0) }
  /// ```
  public struct Zip3<A, B, C>: Publisher
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

    /// Creates a publisher that applies the zip function to three upstream publishers.
    public init(_ a: A, _ b: B, _ c: C) {
      self.a = a
      self.b = b
      self.c = c
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      let strategy = ZipStrategy(slots: Slots3<A.Output, B.Output, C.Output>())
      // As in Combine, every upstream is subscribed before the subscriber has its subscription.
      CombiningSubscription.prepare(subscriber, strategy: strategy, upstreamCount: 3)
        .attach(a)
        .attach(b)
        .attach(c)
        .handDown()
    }
  }

  /// A publisher created by applying the zip function to four upstream publishers.
  ///
  /// It behaves as ``Publishers/Zip``, with four upstreams.
  ///
  /// ```swift
  /// let cancellable = Publishers.Zip4(p1, p2, p3, p4)
  ///     .sink { print($0) }
  /// ```
  public struct Zip4<A, B, C, D>: Publisher
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

    /// Creates a publisher that applies the zip function to four upstream publishers.
    public init(_ a: A, _ b: B, _ c: C, _ d: D) {
      self.a = a
      self.b = b
      self.c = c
      self.d = d
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      let strategy = ZipStrategy(slots: Slots4<A.Output, B.Output, C.Output, D.Output>())
      // As in Combine, every upstream is subscribed before the subscriber has its subscription.
      CombiningSubscription.prepare(subscriber, strategy: strategy, upstreamCount: 4)
        .attach(a)
        .attach(b)
        .attach(c)
        .attach(d)
        .handDown()
    }
  }
}

extension Publishers.Zip: Equatable where A: Equatable, B: Equatable {
  /// Two zips are equal when their upstreams are equal.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.a == rhs.a && lhs.b == rhs.b
  }
}

extension Publishers.Zip3: Equatable where A: Equatable, B: Equatable, C: Equatable {
  /// Two zips are equal when their upstreams are equal.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.a == rhs.a && lhs.b == rhs.b && lhs.c == rhs.c
  }
}

extension Publishers.Zip4: Equatable where A: Equatable, B: Equatable, C: Equatable, D: Equatable {
  /// Two zips are equal when their upstreams are equal.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.a == rhs.a && lhs.b == rhs.b && lhs.c == rhs.c && lhs.d == rhs.d
  }
}

extension Publisher {
  /// Combines elements from another publisher to deliver tuples of elements: the oldest unconsumed
  /// element of each, as a tuple.
  ///
  /// ```swift
  /// let cancellable = p1.zip(p2)
  ///     .sink { print($0) }
  /// ```
  @inlinable
  public func zip<P>(_ other: P) -> Publishers.Zip<Self, P>
  where P: Publisher, Self.Failure == P.Failure {
    Publishers.Zip(self, other)
  }

  /// Combines elements from another publisher and delivers a transformation of the oldest unconsumed
  /// element of each.
  ///
  /// ```swift
  /// let cancellable = p1.zip(p2) { a, b in "\(a)\(b)" }
  ///     .sink { print($0) }
  /// ```
  @inlinable
  public func zip<P, T>(
    _ other: P, _ transform: @escaping (Output, P.Output) -> T
  ) -> Publishers.Map<Publishers.Zip<Self, P>, T>
  where P: Publisher, Self.Failure == P.Failure {
    Publishers.Zip(self, other).map { callOutOfLine(transform, $0.0, $0.1) }
  }

  /// Combines elements from two other publishers to deliver tuples of elements: the oldest unconsumed
  /// element of each, as a tuple.
  ///
  /// ```swift
  /// let cancellable = p1.zip(p2, p3)
  ///     .sink { print($0) }
  /// ```
  public func zip<P, Q>(_ publisher1: P, _ publisher2: Q) -> Publishers.Zip3<Self, P, Q>
  where P: Publisher, Q: Publisher, Self.Failure == P.Failure, P.Failure == Q.Failure {
    Publishers.Zip3(self, publisher1, publisher2)
  }

  /// Combines elements from two other publishers and delivers a transformation of the oldest unconsumed
  /// element of each.
  ///
  /// ```swift
  /// let cancellable = p1.zip(p2, p3) { a, b, c in "\(a)\(b)\(c)" }
  ///     .sink { print($0) }
  /// ```
  public func zip<P, Q, T>(
    _ publisher1: P, _ publisher2: Q, _ transform: @escaping (Output, P.Output, Q.Output) -> T
  ) -> Publishers.Map<Publishers.Zip3<Self, P, Q>, T>
  where P: Publisher, Q: Publisher, Self.Failure == P.Failure, P.Failure == Q.Failure {
    Publishers.Zip3(self, publisher1, publisher2).map { callOutOfLine(transform, $0.0, $0.1, $0.2) }
  }

  /// Combines elements from three other publishers to deliver tuples of elements: the oldest unconsumed
  /// element of each, as a tuple.
  ///
  /// ```swift
  /// let cancellable = p1.zip(p2, p3, p4)
  ///     .sink { print($0) }
  /// ```
  public func zip<P, Q, R>(_ publisher1: P, _ publisher2: Q, _ publisher3: R) -> Publishers.Zip4<Self, P, Q, R>
  where
    P: Publisher, Q: Publisher, R: Publisher, Self.Failure == P.Failure, P.Failure == Q.Failure, Q.Failure == R.Failure
  {
    Publishers.Zip4(self, publisher1, publisher2, publisher3)
  }

  /// Combines elements from three other publishers and delivers a transformation of the oldest unconsumed
  /// element of each.
  ///
  /// ```swift
  /// let cancellable = p1.zip(p2, p3, p4) { a, b, c, d in "\(a)\(b)\(c)\(d)" }
  ///     .sink { print($0) }
  /// ```
  public func zip<P, Q, R, T>(
    _ publisher1: P, _ publisher2: Q, _ publisher3: R,
    _ transform: @escaping (Output, P.Output, Q.Output, R.Output) -> T
  ) -> Publishers.Map<Publishers.Zip4<Self, P, Q, R>, T>
  where
    P: Publisher, Q: Publisher, R: Publisher, Self.Failure == P.Failure, P.Failure == Q.Failure, Q.Failure == R.Failure
  {
    Publishers.Zip4(self, publisher1, publisher2, publisher3).map {
      callOutOfLine(transform, $0.0, $0.1, $0.2, $0.3)
    }
  }
}

/// Zips values: an output takes the oldest queued value of every upstream, once each has one.
@usableFromInline
struct ZipStrategy<Slots: SlotSet>: CombiningStrategy {
  @usableFromInline
  var slots: Slots

  @usableFromInline
  init(slots: Slots) {
    self.slots = slots
  }

  @usableFromInline
  static var description: String { "Zip" }
  @usableFromInline
  static var requestsOneAtATime: Bool { false }
  @usableFromInline
  static var dropsOutputWithoutDemand: Bool { false }
  @usableFromInline
  static var returnsDemandToSender: Bool { true }
  @usableFromInline
  static var cancelsFailedUpstream: Bool { true }
  @usableFromInline
  static var exhaustsOnValues: Bool { true }

  @usableFromInline @inline(__always)
  mutating func combine<Input>(_ value: Input, from index: Int) -> Slots.Output? {
    slots.enqueue(value, at: index)
  }

  /// As in Combine: an upstream that has finished with nothing queued can pair with nothing more.
  @usableFromInline @inline(__always)
  func isExhausted(finished: [Bool], finishedCount: Int) -> Bool {
    finishedCount > 0 && slots.finishedSlotIsEmpty(finished)
  }

  @usableFromInline
  mutating func release() {
    slots.removeAll()
  }
}

extension Publishers {
  /// A publisher created by applying the merge function to two upstream publishers.
  ///
  /// It interleaves the elements of its upstreams as they arrive, finishes once every upstream
  /// has finished, and fails with the first upstream failure (cancelling every upstream, the
  /// failed one included, as Combine does). It asks each upstream for one element at a time,
  /// as Combine does, so an element the subscriber has no demand for waits (one per upstream)
  /// until it asks; once the subscriber asks for `.unlimited`, every upstream is asked for
  /// `.unlimited`. Elements waiting when the last upstream finishes are delivered before the
  /// completion.
  ///
  /// ```swift
  /// let cancellable = Publishers.Merge(numbers, moreNumbers)
  ///     .sink { print($0) }
  /// ```
  public struct Merge<A, B>: Publisher
  where A: Publisher, B: Publisher, A.Failure == B.Failure, A.Output == B.Output {
    /// The kind of values published by this publisher.
    public typealias Output = A.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = A.Failure

    /// The first upstream publisher.
    public let a: A

    /// The second upstream publisher.
    public let b: B

    /// Creates a publisher created by applying the merge function to two upstream publishers.
    @inlinable
    public init(_ a: A, _ b: B) {
      self.a = a
      self.b = b
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inlinable @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      MergeStrategy.subscribe(subscriber, upstreamCount: 2).attachMerged(a).attachMerged(b)
    }

    /// Merges this publisher's upstreams with another publisher: one flat ``Publishers/Merge3``.
    ///
    /// ```swift
    /// let merged = Publishers.Merge(p1, p2).merge(with: p3)
    /// ```
    @inlinable
    public func merge<P>(with other: P) -> Publishers.Merge3<A, B, P>
    where P: Publisher, B.Failure == P.Failure, B.Output == P.Output {
      Publishers.Merge3(a, b, other)
    }

    /// Merges this publisher's upstreams with 2 other publishers: one flat ``Publishers/Merge4``.
    ///
    /// ```swift
    /// let merged = Publishers.Merge(p1, p2).merge(with: p3, p4)
    /// ```
    @inlinable
    public func merge<Z, Y>(with z: Z, _ y: Y) -> Publishers.Merge4<A, B, Z, Y>
    where
      Z: Publisher, Y: Publisher, B.Failure == Z.Failure, B.Output == Z.Output, Z.Failure == Y.Failure,
      Z.Output == Y.Output
    {
      Publishers.Merge4(a, b, z, y)
    }

    /// Merges this publisher's upstreams with 3 other publishers: one flat ``Publishers/Merge5``.
    ///
    /// ```swift
    /// let merged = Publishers.Merge(p1, p2).merge(with: p3, p4, p5)
    /// ```
    @inlinable
    public func merge<Z, Y, X>(with z: Z, _ y: Y, _ x: X) -> Publishers.Merge5<A, B, Z, Y, X>
    where
      Z: Publisher, Y: Publisher, X: Publisher, B.Failure == Z.Failure, B.Output == Z.Output, Z.Failure == Y.Failure,
      Z.Output == Y.Output, Y.Failure == X.Failure, Y.Output == X.Output
    {
      Publishers.Merge5(a, b, z, y, x)
    }

    /// Merges this publisher's upstreams with 4 other publishers: one flat ``Publishers/Merge6``.
    ///
    /// ```swift
    /// let merged = Publishers.Merge(p1, p2).merge(with: p3, p4, p5, p6)
    /// ```
    @inlinable
    public func merge<Z, Y, X, W>(with z: Z, _ y: Y, _ x: X, _ w: W) -> Publishers.Merge6<A, B, Z, Y, X, W>
    where
      Z: Publisher, Y: Publisher, X: Publisher, W: Publisher, B.Failure == Z.Failure, B.Output == Z.Output,
      Z.Failure == Y.Failure, Z.Output == Y.Output, Y.Failure == X.Failure, Y.Output == X.Output,
      X.Failure == W.Failure, X.Output == W.Output
    {
      Publishers.Merge6(a, b, z, y, x, w)
    }

    /// Merges this publisher's upstreams with 5 other publishers: one flat ``Publishers/Merge7``.
    ///
    /// ```swift
    /// let merged = Publishers.Merge(p1, p2).merge(with: p3, p4, p5, p6, p7)
    /// ```
    @inlinable
    public func merge<Z, Y, X, W, V>(
      with z: Z, _ y: Y, _ x: X, _ w: W, _ v: V
    ) -> Publishers.Merge7<A, B, Z, Y, X, W, V>
    where
      Z: Publisher, Y: Publisher, X: Publisher, W: Publisher, V: Publisher, B.Failure == Z.Failure,
      B.Output == Z.Output, Z.Failure == Y.Failure, Z.Output == Y.Output, Y.Failure == X.Failure, Y.Output == X.Output,
      X.Failure == W.Failure, X.Output == W.Output, W.Failure == V.Failure, W.Output == V.Output
    {
      Publishers.Merge7(a, b, z, y, x, w, v)
    }

    /// Merges this publisher's upstreams with 6 other publishers: one flat ``Publishers/Merge8``.
    ///
    /// ```swift
    /// let merged = Publishers.Merge(p1, p2).merge(with: p3, p4, p5, p6, p7, p8)
    /// ```
    @inlinable
    public func merge<Z, Y, X, W, V, U>(
      with z: Z, _ y: Y, _ x: X, _ w: W, _ v: V, _ u: U
    ) -> Publishers.Merge8<A, B, Z, Y, X, W, V, U>
    where
      Z: Publisher, Y: Publisher, X: Publisher, W: Publisher, V: Publisher, U: Publisher, B.Failure == Z.Failure,
      B.Output == Z.Output, Z.Failure == Y.Failure, Z.Output == Y.Output, Y.Failure == X.Failure, Y.Output == X.Output,
      X.Failure == W.Failure, X.Output == W.Output, W.Failure == V.Failure, W.Output == V.Output,
      V.Failure == U.Failure, V.Output == U.Output
    {
      Publishers.Merge8(a, b, z, y, x, w, v, u)
    }
  }

  /// A publisher created by applying the merge function to three upstream publishers.
  ///
  /// It behaves as ``Publishers/Merge``, with three upstreams.
  ///
  /// ```swift
  /// let cancellable = Publishers.Merge3(p1, p2, p3)
  ///     .sink { print($0) }
  /// ```
  public struct Merge3<A, B, C>: Publisher
  where
    A: Publisher, B: Publisher, C: Publisher, A.Failure == B.Failure, A.Output == B.Output, B.Failure == C.Failure,
    B.Output == C.Output
  {
    /// The kind of values published by this publisher.
    public typealias Output = A.Output
    /// The kind of errors this publisher might publish.
    public typealias Failure = A.Failure

    /// The first upstream publisher.
    public let a: A

    /// The second upstream publisher.
    public let b: B

    /// The third upstream publisher.
    public let c: C

    /// Creates a publisher created by applying the merge function to three upstream publishers.
    public init(_ a: A, _ b: B, _ c: C) {
      self.a = a
      self.b = b
      self.c = c
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      MergeStrategy.subscribe(subscriber, upstreamCount: 3).attachMerged(a).attachMerged(b).attachMerged(c)
    }

    /// Merges this publisher's upstreams with another publisher: one flat ``Publishers/Merge4``.
    ///
    /// ```swift
    /// let merged = Publishers.Merge3(p1, p2, p3).merge(with: p4)
    /// ```
    public func merge<P>(with other: P) -> Publishers.Merge4<A, B, C, P>
    where P: Publisher, C.Failure == P.Failure, C.Output == P.Output {
      Publishers.Merge4(a, b, c, other)
    }

    /// Merges this publisher's upstreams with 2 other publishers: one flat ``Publishers/Merge5``.
    ///
    /// ```swift
    /// let merged = Publishers.Merge3(p1, p2, p3).merge(with: p4, p5)
    /// ```
    public func merge<Z, Y>(with z: Z, _ y: Y) -> Publishers.Merge5<A, B, C, Z, Y>
    where
      Z: Publisher, Y: Publisher, C.Failure == Z.Failure, C.Output == Z.Output, Z.Failure == Y.Failure,
      Z.Output == Y.Output
    {
      Publishers.Merge5(a, b, c, z, y)
    }

    /// Merges this publisher's upstreams with 3 other publishers: one flat ``Publishers/Merge6``.
    ///
    /// ```swift
    /// let merged = Publishers.Merge3(p1, p2, p3).merge(with: p4, p5, p6)
    /// ```
    public func merge<Z, Y, X>(with z: Z, _ y: Y, _ x: X) -> Publishers.Merge6<A, B, C, Z, Y, X>
    where
      Z: Publisher, Y: Publisher, X: Publisher, C.Failure == Z.Failure, C.Output == Z.Output, Z.Failure == Y.Failure,
      Z.Output == Y.Output, Y.Failure == X.Failure, Y.Output == X.Output
    {
      Publishers.Merge6(a, b, c, z, y, x)
    }

    /// Merges this publisher's upstreams with 4 other publishers: one flat ``Publishers/Merge7``.
    ///
    /// ```swift
    /// let merged = Publishers.Merge3(p1, p2, p3).merge(with: p4, p5, p6, p7)
    /// ```
    public func merge<Z, Y, X, W>(with z: Z, _ y: Y, _ x: X, _ w: W) -> Publishers.Merge7<A, B, C, Z, Y, X, W>
    where
      Z: Publisher, Y: Publisher, X: Publisher, W: Publisher, C.Failure == Z.Failure, C.Output == Z.Output,
      Z.Failure == Y.Failure, Z.Output == Y.Output, Y.Failure == X.Failure, Y.Output == X.Output,
      X.Failure == W.Failure, X.Output == W.Output
    {
      Publishers.Merge7(a, b, c, z, y, x, w)
    }

    /// Merges this publisher's upstreams with 5 other publishers: one flat ``Publishers/Merge8``.
    ///
    /// ```swift
    /// let merged = Publishers.Merge3(p1, p2, p3).merge(with: p4, p5, p6, p7, p8)
    /// ```
    public func merge<Z, Y, X, W, V>(
      with z: Z, _ y: Y, _ x: X, _ w: W, _ v: V
    ) -> Publishers.Merge8<A, B, C, Z, Y, X, W, V>
    where
      Z: Publisher, Y: Publisher, X: Publisher, W: Publisher, V: Publisher, C.Failure == Z.Failure,
      C.Output == Z.Output, Z.Failure == Y.Failure, Z.Output == Y.Output, Y.Failure == X.Failure, Y.Output == X.Output,
      X.Failure == W.Failure, X.Output == W.Output, W.Failure == V.Failure, W.Output == V.Output
    {
      Publishers.Merge8(a, b, c, z, y, x, w, v)
    }
  }

  /// A publisher created by applying the merge function to four upstream publishers.
  ///
  /// It behaves as ``Publishers/Merge``, with four upstreams.
  ///
  /// ```swift
  /// let cancellable = Publishers.Merge4(p1, p2, p3, p4)
  ///     .sink { print($0) }
  /// ```
  public struct Merge4<A, B, C, D>: Publisher
  where
    A: Publisher, B: Publisher, C: Publisher, D: Publisher, A.Failure == B.Failure, A.Output == B.Output,
    B.Failure == C.Failure, B.Output == C.Output, C.Failure == D.Failure, C.Output == D.Output
  {
    /// The kind of values published by this publisher.
    public typealias Output = A.Output
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

    /// Creates a publisher created by applying the merge function to four upstream publishers.
    public init(_ a: A, _ b: B, _ c: C, _ d: D) {
      self.a = a
      self.b = b
      self.c = c
      self.d = d
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      MergeStrategy.subscribe(subscriber, upstreamCount: 4).attachMerged(a).attachMerged(b).attachMerged(c)
        .attachMerged(d)
    }

    /// Merges this publisher's upstreams with another publisher: one flat ``Publishers/Merge5``.
    ///
    /// ```swift
    /// let merged = Publishers.Merge4(p1, p2, p3, p4).merge(with: p5)
    /// ```
    public func merge<P>(with other: P) -> Publishers.Merge5<A, B, C, D, P>
    where P: Publisher, D.Failure == P.Failure, D.Output == P.Output {
      Publishers.Merge5(a, b, c, d, other)
    }

    /// Merges this publisher's upstreams with 2 other publishers: one flat ``Publishers/Merge6``.
    ///
    /// ```swift
    /// let merged = Publishers.Merge4(p1, p2, p3, p4).merge(with: p5, p6)
    /// ```
    public func merge<Z, Y>(with z: Z, _ y: Y) -> Publishers.Merge6<A, B, C, D, Z, Y>
    where
      Z: Publisher, Y: Publisher, D.Failure == Z.Failure, D.Output == Z.Output, Z.Failure == Y.Failure,
      Z.Output == Y.Output
    {
      Publishers.Merge6(a, b, c, d, z, y)
    }

    /// Merges this publisher's upstreams with 3 other publishers: one flat ``Publishers/Merge7``.
    ///
    /// ```swift
    /// let merged = Publishers.Merge4(p1, p2, p3, p4).merge(with: p5, p6, p7)
    /// ```
    public func merge<Z, Y, X>(with z: Z, _ y: Y, _ x: X) -> Publishers.Merge7<A, B, C, D, Z, Y, X>
    where
      Z: Publisher, Y: Publisher, X: Publisher, D.Failure == Z.Failure, D.Output == Z.Output, Z.Failure == Y.Failure,
      Z.Output == Y.Output, Y.Failure == X.Failure, Y.Output == X.Output
    {
      Publishers.Merge7(a, b, c, d, z, y, x)
    }

    /// Merges this publisher's upstreams with 4 other publishers: one flat ``Publishers/Merge8``.
    ///
    /// ```swift
    /// let merged = Publishers.Merge4(p1, p2, p3, p4).merge(with: p5, p6, p7, p8)
    /// ```
    public func merge<Z, Y, X, W>(with z: Z, _ y: Y, _ x: X, _ w: W) -> Publishers.Merge8<A, B, C, D, Z, Y, X, W>
    where
      Z: Publisher, Y: Publisher, X: Publisher, W: Publisher, D.Failure == Z.Failure, D.Output == Z.Output,
      Z.Failure == Y.Failure, Z.Output == Y.Output, Y.Failure == X.Failure, Y.Output == X.Output,
      X.Failure == W.Failure, X.Output == W.Output
    {
      Publishers.Merge8(a, b, c, d, z, y, x, w)
    }
  }

  /// A publisher created by applying the merge function to five upstream publishers.
  ///
  /// It behaves as ``Publishers/Merge``, with five upstreams.
  ///
  /// ```swift
  /// let cancellable = Publishers.Merge5(p1, p2, p3, p4, p5)
  ///     .sink { print($0) }
  /// ```
  public struct Merge5<A, B, C, D, E>: Publisher
  where
    A: Publisher, B: Publisher, C: Publisher, D: Publisher, E: Publisher, A.Failure == B.Failure, A.Output == B.Output,
    B.Failure == C.Failure, B.Output == C.Output, C.Failure == D.Failure, C.Output == D.Output, D.Failure == E.Failure,
    D.Output == E.Output
  {
    /// The kind of values published by this publisher.
    public typealias Output = A.Output
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

    /// The fifth upstream publisher.
    public let e: E

    /// Creates a publisher created by applying the merge function to five upstream publishers.
    public init(_ a: A, _ b: B, _ c: C, _ d: D, _ e: E) {
      self.a = a
      self.b = b
      self.c = c
      self.d = d
      self.e = e
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      MergeStrategy.subscribe(subscriber, upstreamCount: 5).attachMerged(a).attachMerged(b).attachMerged(c)
        .attachMerged(d).attachMerged(e)
    }

    /// Merges this publisher's upstreams with another publisher: one flat ``Publishers/Merge6``.
    ///
    /// ```swift
    /// let merged = Publishers.Merge5(p1, p2, p3, p4, p5).merge(with: p6)
    /// ```
    public func merge<P>(with other: P) -> Publishers.Merge6<A, B, C, D, E, P>
    where P: Publisher, E.Failure == P.Failure, E.Output == P.Output {
      Publishers.Merge6(a, b, c, d, e, other)
    }

    /// Merges this publisher's upstreams with 2 other publishers: one flat ``Publishers/Merge7``.
    ///
    /// ```swift
    /// let merged = Publishers.Merge5(p1, p2, p3, p4, p5).merge(with: p6, p7)
    /// ```
    public func merge<Z, Y>(with z: Z, _ y: Y) -> Publishers.Merge7<A, B, C, D, E, Z, Y>
    where
      Z: Publisher, Y: Publisher, E.Failure == Z.Failure, E.Output == Z.Output, Z.Failure == Y.Failure,
      Z.Output == Y.Output
    {
      Publishers.Merge7(a, b, c, d, e, z, y)
    }

    /// Merges this publisher's upstreams with 3 other publishers: one flat ``Publishers/Merge8``.
    ///
    /// ```swift
    /// let merged = Publishers.Merge5(p1, p2, p3, p4, p5).merge(with: p6, p7, p8)
    /// ```
    public func merge<Z, Y, X>(with z: Z, _ y: Y, _ x: X) -> Publishers.Merge8<A, B, C, D, E, Z, Y, X>
    where
      Z: Publisher, Y: Publisher, X: Publisher, E.Failure == Z.Failure, E.Output == Z.Output, Z.Failure == Y.Failure,
      Z.Output == Y.Output, Y.Failure == X.Failure, Y.Output == X.Output
    {
      Publishers.Merge8(a, b, c, d, e, z, y, x)
    }
  }

  /// A publisher created by applying the merge function to six upstream publishers.
  ///
  /// It behaves as ``Publishers/Merge``, with six upstreams.
  ///
  /// ```swift
  /// let cancellable = Publishers.Merge6(p1, p2, p3, p4, p5, p6)
  ///     .sink { print($0) }
  /// ```
  public struct Merge6<A, B, C, D, E, F>: Publisher
  where
    A: Publisher, B: Publisher, C: Publisher, D: Publisher, E: Publisher, F: Publisher, A.Failure == B.Failure,
    A.Output == B.Output, B.Failure == C.Failure, B.Output == C.Output, C.Failure == D.Failure, C.Output == D.Output,
    D.Failure == E.Failure, D.Output == E.Output, E.Failure == F.Failure, E.Output == F.Output
  {
    /// The kind of values published by this publisher.
    public typealias Output = A.Output
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

    /// The fifth upstream publisher.
    public let e: E

    /// The sixth upstream publisher.
    public let f: F

    /// Creates a publisher created by applying the merge function to six upstream publishers.
    public init(_ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F) {
      self.a = a
      self.b = b
      self.c = c
      self.d = d
      self.e = e
      self.f = f
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      MergeStrategy.subscribe(subscriber, upstreamCount: 6).attachMerged(a).attachMerged(b).attachMerged(c)
        .attachMerged(d).attachMerged(e).attachMerged(f)
    }

    /// Merges this publisher's upstreams with another publisher: one flat ``Publishers/Merge7``.
    ///
    /// ```swift
    /// let merged = Publishers.Merge6(p1, p2, p3, p4, p5, p6).merge(with: p7)
    /// ```
    public func merge<P>(with other: P) -> Publishers.Merge7<A, B, C, D, E, F, P>
    where P: Publisher, F.Failure == P.Failure, F.Output == P.Output {
      Publishers.Merge7(a, b, c, d, e, f, other)
    }

    /// Merges this publisher's upstreams with 2 other publishers: one flat ``Publishers/Merge8``.
    ///
    /// ```swift
    /// let merged = Publishers.Merge6(p1, p2, p3, p4, p5, p6).merge(with: p7, p8)
    /// ```
    public func merge<Z, Y>(with z: Z, _ y: Y) -> Publishers.Merge8<A, B, C, D, E, F, Z, Y>
    where
      Z: Publisher, Y: Publisher, F.Failure == Z.Failure, F.Output == Z.Output, Z.Failure == Y.Failure,
      Z.Output == Y.Output
    {
      Publishers.Merge8(a, b, c, d, e, f, z, y)
    }
  }

  /// A publisher created by applying the merge function to seven upstream publishers.
  ///
  /// It behaves as ``Publishers/Merge``, with seven upstreams.
  ///
  /// ```swift
  /// let cancellable = Publishers.Merge7(p1, p2, p3, p4, p5, p6, p7)
  ///     .sink { print($0) }
  /// ```
  public struct Merge7<A, B, C, D, E, F, G>: Publisher
  where
    A: Publisher, B: Publisher, C: Publisher, D: Publisher, E: Publisher, F: Publisher, G: Publisher,
    A.Failure == B.Failure, A.Output == B.Output, B.Failure == C.Failure, B.Output == C.Output, C.Failure == D.Failure,
    C.Output == D.Output, D.Failure == E.Failure, D.Output == E.Output, E.Failure == F.Failure, E.Output == F.Output,
    F.Failure == G.Failure, F.Output == G.Output
  {
    /// The kind of values published by this publisher.
    public typealias Output = A.Output
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

    /// The fifth upstream publisher.
    public let e: E

    /// The sixth upstream publisher.
    public let f: F

    /// The seventh upstream publisher.
    public let g: G

    /// Creates a publisher created by applying the merge function to seven upstream publishers.
    public init(_ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G) {
      self.a = a
      self.b = b
      self.c = c
      self.d = d
      self.e = e
      self.f = f
      self.g = g
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      MergeStrategy.subscribe(subscriber, upstreamCount: 7).attachMerged(a).attachMerged(b).attachMerged(c)
        .attachMerged(d).attachMerged(e).attachMerged(f).attachMerged(g)
    }

    /// Merges this publisher's upstreams with another publisher: one flat ``Publishers/Merge8``.
    ///
    /// ```swift
    /// let merged = Publishers.Merge7(p1, p2, p3, p4, p5, p6, p7).merge(with: p8)
    /// ```
    public func merge<P>(with other: P) -> Publishers.Merge8<A, B, C, D, E, F, G, P>
    where P: Publisher, G.Failure == P.Failure, G.Output == P.Output {
      Publishers.Merge8(a, b, c, d, e, f, g, other)
    }
  }

  /// A publisher created by applying the merge function to eight upstream publishers.
  ///
  /// It behaves as ``Publishers/Merge``, with eight upstreams.
  ///
  /// ```swift
  /// let cancellable = Publishers.Merge8(p1, p2, p3, p4, p5, p6, p7, p8)
  ///     .sink { print($0) }
  /// ```
  public struct Merge8<A, B, C, D, E, F, G, H>: Publisher
  where
    A: Publisher, B: Publisher, C: Publisher, D: Publisher, E: Publisher, F: Publisher, G: Publisher, H: Publisher,
    A.Failure == B.Failure, A.Output == B.Output, B.Failure == C.Failure, B.Output == C.Output, C.Failure == D.Failure,
    C.Output == D.Output, D.Failure == E.Failure, D.Output == E.Output, E.Failure == F.Failure, E.Output == F.Output,
    F.Failure == G.Failure, F.Output == G.Output, G.Failure == H.Failure, G.Output == H.Output
  {
    /// The kind of values published by this publisher.
    public typealias Output = A.Output
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

    /// The fifth upstream publisher.
    public let e: E

    /// The sixth upstream publisher.
    public let f: F

    /// The seventh upstream publisher.
    public let g: G

    /// The eighth upstream publisher.
    public let h: H

    /// Creates a publisher created by applying the merge function to eight upstream publishers.
    public init(_ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G, _ h: H) {
      self.a = a
      self.b = b
      self.c = c
      self.d = d
      self.e = e
      self.f = f
      self.g = g
      self.h = h
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    @inline(__always)
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
      MergeStrategy.subscribe(subscriber, upstreamCount: 8).attachMerged(a).attachMerged(b).attachMerged(c)
        .attachMerged(d).attachMerged(e).attachMerged(f).attachMerged(g).attachMerged(h)
    }
  }
}

extension Publishers.Merge: Equatable where A: Equatable, B: Equatable {
  /// Two merges are equal when their upstreams are equal.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.a == rhs.a && lhs.b == rhs.b
  }
}

extension Publishers.Merge3: Equatable where A: Equatable, B: Equatable, C: Equatable {
  /// Two merges are equal when their upstreams are equal.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.a == rhs.a && lhs.b == rhs.b && lhs.c == rhs.c
  }
}

extension Publishers.Merge4: Equatable where A: Equatable, B: Equatable, C: Equatable, D: Equatable {
  /// Two merges are equal when their upstreams are equal.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.a == rhs.a && lhs.b == rhs.b && lhs.c == rhs.c && lhs.d == rhs.d
  }
}

extension Publishers.Merge5: Equatable where A: Equatable, B: Equatable, C: Equatable, D: Equatable, E: Equatable {
  /// Two merges are equal when their upstreams are equal.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.a == rhs.a && lhs.b == rhs.b && lhs.c == rhs.c && lhs.d == rhs.d && lhs.e == rhs.e
  }
}

extension Publishers.Merge6: Equatable
where A: Equatable, B: Equatable, C: Equatable, D: Equatable, E: Equatable, F: Equatable {
  /// Two merges are equal when their upstreams are equal.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.a == rhs.a && lhs.b == rhs.b && lhs.c == rhs.c && lhs.d == rhs.d && lhs.e == rhs.e && lhs.f == rhs.f
  }
}

extension Publishers.Merge7: Equatable
where A: Equatable, B: Equatable, C: Equatable, D: Equatable, E: Equatable, F: Equatable, G: Equatable {
  /// Two merges are equal when their upstreams are equal.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.a == rhs.a && lhs.b == rhs.b && lhs.c == rhs.c && lhs.d == rhs.d && lhs.e == rhs.e && lhs.f == rhs.f
      && lhs.g == rhs.g
  }
}

extension Publishers.Merge8: Equatable
where A: Equatable, B: Equatable, C: Equatable, D: Equatable, E: Equatable, F: Equatable, G: Equatable, H: Equatable {
  /// Two merges are equal when their upstreams are equal.
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.a == rhs.a && lhs.b == rhs.b && lhs.c == rhs.c && lhs.d == rhs.d && lhs.e == rhs.e && lhs.f == rhs.f
      && lhs.g == rhs.g && lhs.h == rhs.h
  }
}

extension Publisher {
  /// Combines elements from this publisher with those from another publisher, delivering an
  /// interleaved sequence of elements.
  ///
  /// The merged publisher finishes when both upstreams have finished, and fails with the
  /// first failure of either.
  ///
  /// ```swift
  /// let letters = PassthroughSubject<String, Never>()
  /// let cancellable = Just("a").merge(with: letters)
  ///     .sink { print($0) }   // "a", then whatever `letters` sends
  /// ```
  @inlinable
  public func merge<P>(with other: P) -> Publishers.Merge<Self, P>
  where P: Publisher, Self.Failure == P.Failure, Self.Output == P.Output {
    Publishers.Merge(self, other)
  }

  /// Combines elements from this publisher with those from 2 other publishers, delivering an
  /// interleaved sequence of elements.
  ///
  /// ```swift
  /// let cancellable = p1.merge(with: p2, p3)
  ///     .sink { print($0) }
  /// ```
  public func merge<B, C>(with b: B, _ c: C) -> Publishers.Merge3<Self, B, C>
  where
    B: Publisher, C: Publisher, Self.Failure == B.Failure, Self.Output == B.Output, B.Failure == C.Failure,
    B.Output == C.Output
  {
    Publishers.Merge3(self, b, c)
  }

  /// Combines elements from this publisher with those from 3 other publishers, delivering an
  /// interleaved sequence of elements.
  ///
  /// ```swift
  /// let cancellable = p1.merge(with: p2, p3, p4)
  ///     .sink { print($0) }
  /// ```
  public func merge<B, C, D>(with b: B, _ c: C, _ d: D) -> Publishers.Merge4<Self, B, C, D>
  where
    B: Publisher, C: Publisher, D: Publisher, Self.Failure == B.Failure, Self.Output == B.Output,
    B.Failure == C.Failure, B.Output == C.Output, C.Failure == D.Failure, C.Output == D.Output
  {
    Publishers.Merge4(self, b, c, d)
  }

  /// Combines elements from this publisher with those from 4 other publishers, delivering an
  /// interleaved sequence of elements.
  ///
  /// ```swift
  /// let cancellable = p1.merge(with: p2, p3, p4, p5)
  ///     .sink { print($0) }
  /// ```
  public func merge<B, C, D, E>(with b: B, _ c: C, _ d: D, _ e: E) -> Publishers.Merge5<Self, B, C, D, E>
  where
    B: Publisher, C: Publisher, D: Publisher, E: Publisher, Self.Failure == B.Failure, Self.Output == B.Output,
    B.Failure == C.Failure, B.Output == C.Output, C.Failure == D.Failure, C.Output == D.Output, D.Failure == E.Failure,
    D.Output == E.Output
  {
    Publishers.Merge5(self, b, c, d, e)
  }

  /// Combines elements from this publisher with those from 5 other publishers, delivering an
  /// interleaved sequence of elements.
  ///
  /// ```swift
  /// let cancellable = p1.merge(with: p2, p3, p4, p5, p6)
  ///     .sink { print($0) }
  /// ```
  public func merge<B, C, D, E, F>(with b: B, _ c: C, _ d: D, _ e: E, _ f: F) -> Publishers.Merge6<Self, B, C, D, E, F>
  where
    B: Publisher, C: Publisher, D: Publisher, E: Publisher, F: Publisher, Self.Failure == B.Failure,
    Self.Output == B.Output, B.Failure == C.Failure, B.Output == C.Output, C.Failure == D.Failure, C.Output == D.Output,
    D.Failure == E.Failure, D.Output == E.Output, E.Failure == F.Failure, E.Output == F.Output
  {
    Publishers.Merge6(self, b, c, d, e, f)
  }

  /// Combines elements from this publisher with those from 6 other publishers, delivering an
  /// interleaved sequence of elements.
  ///
  /// ```swift
  /// let cancellable = p1.merge(with: p2, p3, p4, p5, p6, p7)
  ///     .sink { print($0) }
  /// ```
  public func merge<B, C, D, E, F, G>(
    with b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G
  ) -> Publishers.Merge7<Self, B, C, D, E, F, G>
  where
    B: Publisher, C: Publisher, D: Publisher, E: Publisher, F: Publisher, G: Publisher, Self.Failure == B.Failure,
    Self.Output == B.Output, B.Failure == C.Failure, B.Output == C.Output, C.Failure == D.Failure, C.Output == D.Output,
    D.Failure == E.Failure, D.Output == E.Output, E.Failure == F.Failure, E.Output == F.Output, F.Failure == G.Failure,
    F.Output == G.Output
  {
    Publishers.Merge7(self, b, c, d, e, f, g)
  }

  /// Combines elements from this publisher with those from 7 other publishers, delivering an
  /// interleaved sequence of elements.
  ///
  /// ```swift
  /// let cancellable = p1.merge(with: p2, p3, p4, p5, p6, p7, p8)
  ///     .sink { print($0) }
  /// ```
  public func merge<B, C, D, E, F, G, H>(
    with b: B, _ c: C, _ d: D, _ e: E, _ f: F, _ g: G, _ h: H
  ) -> Publishers.Merge8<Self, B, C, D, E, F, G, H>
  where
    B: Publisher, C: Publisher, D: Publisher, E: Publisher, F: Publisher, G: Publisher, H: Publisher,
    Self.Failure == B.Failure, Self.Output == B.Output, B.Failure == C.Failure, B.Output == C.Output,
    C.Failure == D.Failure, C.Output == D.Output, D.Failure == E.Failure, D.Output == E.Output, E.Failure == F.Failure,
    E.Output == F.Output, F.Failure == G.Failure, F.Output == G.Output, G.Failure == H.Failure, G.Output == H.Output
  {
    Publishers.Merge8(self, b, c, d, e, f, g, h)
  }

  /// Combines elements from this publisher with those from another publisher of the same type,
  /// delivering an interleaved sequence of elements.
  ///
  /// ```swift
  /// let first = PassthroughSubject<Int, Never>()
  /// let second = PassthroughSubject<Int, Never>()
  /// let merged: Publishers.MergeMany<PassthroughSubject<Int, Never>> = first.merge(with: second)
  /// ```
  @inlinable
  public func merge(with other: Self) -> Publishers.MergeMany<Self> {
    Publishers.MergeMany(self, other)
  }
}

/// Merges values: every value is an output of its own, in the order values arrive. Nothing is
/// kept in a slot.
@usableFromInline
struct MergeStrategy<Output>: CombiningStrategy {
  // Never read: it gives the strategy a size. A stored property of size zero sits at offset 0
  // of the subscription, so ThreadSanitizer, which instruments each access to a stored property,
  // takes every modifying access to the strategy for a write to the object's header, racing with
  // the other threads that read the header to call a method: false reports in any build with
  // `--sanitize=thread`, ours and our users'.
  @usableFromInline
  var sized = false

  @inlinable
  init() {}

  @usableFromInline
  static var description: String { "Merge" }
  @inlinable
  static var requestsOneAtATime: Bool { true }
  @inlinable
  static var dropsOutputWithoutDemand: Bool { false }
  @inlinable
  static var returnsDemandToSender: Bool { true }
  // Combine's merge cancels the upstream that failed too (OpenCombine MergeTests.swift
  // `testBCancelledAfterAFailed`, run against Combine).
  @inlinable
  static var cancelsFailedUpstream: Bool { true }
  @inlinable
  static var exhaustsOnValues: Bool { false }

  @inlinable
  mutating func combine<Value>(_ value: Value, from index: Int) -> Output? {
    // Every side of a merge delivers `Output` (`attachMerged` requires it), so the value
    // is the output.
    value as? Output
  }

  @inlinable
  func isExhausted(finished: [Bool], finishedCount: Int) -> Bool {
    finishedCount == finished.count
  }

  @usableFromInline
  mutating func release() {}

  /// Subscribes `downstream` to a merge of `upstreamCount` upstreams, which the caller then
  /// attaches in order with `attachMerged(_:)`.
  @inlinable @inline(__always)
  static func subscribe<Downstream: Subscriber>(
    _ downstream: Downstream, upstreamCount: Int
  ) -> CombiningSubscription<MergeStrategy, Downstream> where Downstream.Input == Output {
    CombiningSubscription.subscribe(downstream, strategy: MergeStrategy(), upstreamCount: upstreamCount)
  }
}

extension CombiningSubscription {
  /// Subscribes to the next upstream of a merge, which must send the merge's own output. Always
  /// inlined, as `attach` is, so that merges nested in one another subscribe through specialized
  /// code.
  @inlinable @inline(__always) @discardableResult
  func attachMerged<Upstream: Publisher>(_ upstream: Upstream) -> CombiningSubscription
  where
    Strategy == MergeStrategy<Downstream.Input>, Upstream.Output == Downstream.Input,
    Upstream.Failure == Failure
  {
    attach(upstream)
  }
}

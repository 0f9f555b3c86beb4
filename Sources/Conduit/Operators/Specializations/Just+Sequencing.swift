// Combine's specialised sequence operators on `Just`: the value is known, so each operator is
// applied at once and returns a single-value publisher instead of an operator chain.

extension Just {
  /// Drops the value if `count` is positive, at once; publishes it otherwise.
  ///
  /// ```swift
  /// let none: Optional<Int>.Publisher = Just(1).dropFirst()   // finishes empty
  /// ```
  ///
  /// - Precondition: `count` is not negative.
  public func dropFirst(_ count: Int = 1) -> Optional<Output>.Publisher {
    precondition(count >= 0, "dropFirst(\(count)): the number of elements to drop cannot be negative; pass 0 or more")
    return Optional<Output>.Publisher(count > 0 ? nil : output)
  }

  /// Tests the value with a closure, at once; publishes it unless the closure says to drop it.
  ///
  /// ```swift
  /// let kept: Optional<Int>.Publisher = Just(5).drop(while: { $0 < 3 })   // publishes 5
  /// ```
  public func drop(while predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
    Optional<Output>.Publisher(predicate(output) ? nil : output)
  }

  /// Publishes the value if `maxLength` is positive, at once; finishes empty otherwise.
  ///
  /// ```swift
  /// let one: Optional<Int>.Publisher = Just(1).prefix(3)   // publishes 1
  /// ```
  ///
  /// - Precondition: `maxLength` is not negative.
  public func prefix(_ maxLength: Int) -> Optional<Output>.Publisher {
    precondition(maxLength >= 0, "prefix(\(maxLength)): the maximum length cannot be negative; pass 0 or more")
    return Optional<Output>.Publisher(maxLength > 0 ? output : nil)
  }

  /// Tests the value with a closure, at once; publishes it only if the closure says to go on.
  ///
  /// ```swift
  /// let none: Optional<Int>.Publisher = Just(5).prefix(while: { $0 < 3 })   // finishes empty
  /// ```
  public func prefix(while predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
    Optional<Output>.Publisher(predicate(output) ? output : nil)
  }

  /// Returns this publisher: a `Just` is never empty.
  ///
  /// ```swift
  /// let same: Just<Int> = Just(1).replaceEmpty(with: 0)   // publishes 1
  /// ```
  public func replaceEmpty(with output: Output) -> Just<Output> {
    self
  }
}

extension Just {
  /// Puts the given elements before the value, at once; returns a sequence publisher.
  ///
  /// ```swift
  /// let all: Publishers.Sequence<[Int], Never> = Just(3).prepend(1, 2)   // publishes 1, 2, 3
  /// ```
  public func prepend(_ elements: Output...) -> Publishers.Sequence<[Output], Never> {
    prepend(elements)
  }

  /// Puts the elements of a sequence before the value, at once; returns a sequence publisher.
  ///
  /// ```swift
  /// let all: Publishers.Sequence<[Int], Never> = Just(3).prepend(1...2)   // publishes 1, 2, 3
  /// ```
  public func prepend<S: Sequence>(_ elements: S) -> Publishers.Sequence<[Output], Never>
  where S.Element == Output {
    var result = [Output]()
    result.reserveCapacity(elements.underestimatedCount + 1)
    result.append(contentsOf: elements)
    result.append(output)
    return Publishers.Sequence(sequence: result)
  }

  /// Puts the given elements after the value, at once; returns a sequence publisher.
  ///
  /// ```swift
  /// let all: Publishers.Sequence<[Int], Never> = Just(1).append(2, 3)   // publishes 1, 2, 3
  /// ```
  public func append(_ elements: Output...) -> Publishers.Sequence<[Output], Never> {
    append(elements)
  }

  /// Puts the elements of a sequence after the value, at once; returns a sequence publisher.
  ///
  /// ```swift
  /// let all: Publishers.Sequence<[Int], Never> = Just(1).append(2...3)   // publishes 1, 2, 3
  /// ```
  public func append<S: Sequence>(_ elements: S) -> Publishers.Sequence<[Output], Never>
  where S.Element == Output {
    // `append(contentsOf:)` asks the sequence for its `underestimatedCount` once, as Combine
    // does; a `reserveCapacity` of our own would ask a second time.
    var result = [output]
    result.append(contentsOf: elements)
    return Publishers.Sequence(sequence: result)
  }
}

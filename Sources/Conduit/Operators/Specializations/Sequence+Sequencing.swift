// Combine's specialised sequence operators on `Publishers.Sequence`: each is applied to the
// sequence at once and the result is another `Publishers.Sequence`.

extension Publishers.Sequence {
  /// Drops the first elements of the sequence, lazily; returns a publisher of the rest.
  ///
  /// ```swift
  /// let rest = [1, 2, 3].publisher.dropFirst()   // publishes 2, 3
  /// ```
  ///
  /// - Precondition: `count` is not negative.
  public func dropFirst(_ count: Int = 1) -> Publishers.Sequence<DropFirstSequence<Elements>, Failure> {
    precondition(count >= 0, "dropFirst(\(count)): the number of elements to drop cannot be negative; pass 0 or more")
    return Publishers.Sequence(sequence: sequence.dropFirst(count))
  }

  /// Drops elements while a closure returns true, at once; returns a publisher of the rest.
  ///
  /// ```swift
  /// let rest = [1, 2, 5, 1].publisher.drop(while: { $0 < 3 })   // publishes 5, 1
  /// ```
  public func drop(
    while predicate: (Elements.Element) -> Bool
  )
    -> Publishers.Sequence<DropWhileSequence<Elements>, Failure>
  {
    Publishers.Sequence(sequence: sequence.drop(while: predicate))
  }

  /// Keeps at most `maxLength` elements of the sequence, lazily.
  ///
  /// ```swift
  /// let first = [1, 2, 3].publisher.prefix(2)   // publishes 1, 2
  /// ```
  ///
  /// - Precondition: `maxLength` is not negative.
  public func prefix(_ maxLength: Int) -> Publishers.Sequence<PrefixSequence<Elements>, Failure> {
    precondition(maxLength >= 0, "prefix(\(maxLength)): the maximum length cannot be negative; pass 0 or more")
    return Publishers.Sequence(sequence: sequence.prefix(maxLength))
  }

  /// Keeps elements while a closure returns true, at once, in an array.
  ///
  /// ```swift
  /// let small = [1, 2, 5, 1].publisher.prefix(while: { $0 < 3 })   // publishes 1, 2
  /// ```
  public func prefix(
    while predicate: (Elements.Element) -> Bool
  )
    -> Publishers.Sequence<[Elements.Element], Failure>
  {
    Publishers.Sequence(sequence: Array(sequence.prefix(while: predicate)))
  }
}

extension Publishers.Sequence where Elements: RangeReplaceableCollection {
  /// Puts the given elements before the collection's, at once.
  ///
  /// ```swift
  /// let all = [3, 4].publisher.prepend(1, 2)   // publishes 1, 2, 3, 4
  /// ```
  public func prepend(_ elements: Elements.Element...) -> Publishers.Sequence<Elements, Failure> {
    prepend(elements)
  }

  /// Puts the elements of a sequence before the collection's, at once.
  ///
  /// ```swift
  /// let all = [3, 4].publisher.prepend(1...2)   // publishes 1, 2, 3, 4
  /// ```
  public func prepend<S: Swift.Sequence>(_ elements: S) -> Publishers.Sequence<Elements, Failure>
  where S.Element == Elements.Element {
    var result = Elements()
    result.reserveCapacity(sequence.count + elements.underestimatedCount)
    result.append(contentsOf: elements)
    result.append(contentsOf: sequence)
    return Publishers.Sequence(sequence: result)
  }

  /// Puts another sequence publisher's elements before the collection's, at once.
  ///
  /// ```swift
  /// let all = [3, 4].publisher.prepend([1, 2].publisher)   // publishes 1, 2, 3, 4
  /// ```
  public func prepend(_ publisher: Publishers.Sequence<Elements, Failure>) -> Publishers.Sequence<Elements, Failure> {
    var result = publisher.sequence
    result.append(contentsOf: sequence)
    return Publishers.Sequence(sequence: result)
  }

  /// Puts the given elements after the collection's, at once.
  ///
  /// ```swift
  /// let all = [1, 2].publisher.append(3, 4)   // publishes 1, 2, 3, 4
  /// ```
  public func append(_ elements: Elements.Element...) -> Publishers.Sequence<Elements, Failure> {
    append(elements)
  }

  /// Puts the elements of a sequence after the collection's, at once.
  ///
  /// ```swift
  /// let all = [1, 2].publisher.append(3...4)   // publishes 1, 2, 3, 4
  /// ```
  public func append<S: Swift.Sequence>(_ elements: S) -> Publishers.Sequence<Elements, Failure>
  where S.Element == Elements.Element {
    var result = sequence
    result.append(contentsOf: elements)
    return Publishers.Sequence(sequence: result)
  }

  /// Puts another sequence publisher's elements after the collection's, at once.
  ///
  /// ```swift
  /// let all = [1, 2].publisher.append([3, 4].publisher)   // publishes 1, 2, 3, 4
  /// ```
  public func append(_ publisher: Publishers.Sequence<Elements, Failure>) -> Publishers.Sequence<Elements, Failure> {
    append(publisher.sequence)
  }
}

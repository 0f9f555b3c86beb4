// Combine's specialized reducing operators on `Publishers.Sequence`: the sequence is already
// known, so the result is computed at once and published by a `Just`, `Optional.Publisher`,
// `Result.Publisher`, `Empty` or a new `Publishers.Sequence` instead of a reducing pipeline.

extension Publishers.Sequence where Failure == Never {
  /// Publishes the minimum element of the sequence by the given ordering, or nothing for an
  /// empty sequence.
  ///
  /// ```swift
  /// let p: Optional<String>.Publisher = ["pear", "fig"].publisher.min { $0.count < $1.count }
  /// ```
  public func min(
    by areInIncreasingOrder: (Elements.Element, Elements.Element) -> Bool
  ) -> Optional<Elements.Element>.Publisher {
    Optional.Publisher(sequence.min(by: areInIncreasingOrder))
  }

  /// Publishes the maximum element of the sequence by the given ordering, or nothing for an
  /// empty sequence.
  ///
  /// ```swift
  /// let p: Optional<String>.Publisher = ["pear", "fig"].publisher.max { $0.count < $1.count }
  /// ```
  public func max(
    by areInIncreasingOrder: (Elements.Element, Elements.Element) -> Bool
  ) -> Optional<Elements.Element>.Publisher {
    Optional.Publisher(sequence.max(by: areInIncreasingOrder))
  }

  /// Publishes the first element of the sequence that satisfies the predicate, or nothing.
  ///
  /// ```swift
  /// let p: Optional<Int>.Publisher = [1, 4, 6].publisher.first { $0.isMultiple(of: 2) }
  /// ```
  public func first(where predicate: (Elements.Element) -> Bool) -> Optional<Elements.Element>.Publisher {
    Optional.Publisher(sequence.first(where: predicate))
  }
}

extension Publishers.Sequence {
  /// Publishes whether every element of the sequence satisfies the predicate.
  ///
  /// ```swift
  /// let p: Result<Bool, Never>.Publisher = [2, 4].publisher.allSatisfy { $0.isMultiple(of: 2) }
  /// ```
  public func allSatisfy(_ predicate: (Elements.Element) -> Bool) -> Result<Bool, Failure>.Publisher {
    Result.Publisher(sequence.allSatisfy(predicate))
  }

  /// Publishes whether every element of the sequence satisfies the throwing predicate, or the
  /// error it throws.
  ///
  /// ```swift
  /// let p: Result<Bool, any Error>.Publisher = [2, 4].publisher.tryAllSatisfy { $0 > 0 }
  /// ```
  public func tryAllSatisfy(
    _ predicate: (Elements.Element) throws -> Bool
  ) -> Result<Bool, any Error>.Publisher {
    Result.Publisher(Result { try sequence.allSatisfy(predicate) })
  }

  /// Publishes all the elements of the sequence as one array.
  ///
  /// ```swift
  /// let p: Result<[Int], Never>.Publisher = (1...3).publisher.collect()
  /// ```
  public func collect() -> Result<[Elements.Element], Failure>.Publisher {
    Result.Publisher(Array(sequence))
  }

  /// Publishes whether some element of the sequence satisfies the predicate.
  ///
  /// ```swift
  /// let p: Result<Bool, Never>.Publisher = [1, 5].publisher.contains { $0 > 4 }
  /// ```
  public func contains(where predicate: (Elements.Element) -> Bool) -> Result<Bool, Failure>.Publisher {
    Result.Publisher(sequence.contains(where: predicate))
  }

  /// Publishes whether some element of the sequence satisfies the throwing predicate, or the
  /// error it throws.
  ///
  /// ```swift
  /// let p: Result<Bool, any Error>.Publisher = [1, 5].publisher.tryContains { $0 > 4 }
  /// ```
  public func tryContains(
    where predicate: (Elements.Element) throws -> Bool
  ) -> Result<Bool, any Error>.Publisher {
    Result.Publisher(Result { try sequence.contains(where: predicate) })
  }

  /// Publishes no element, only the completion.
  ///
  /// ```swift
  /// let p: Empty<Int, Never> = [1, 2].publisher.ignoreOutput()
  /// ```
  public func ignoreOutput() -> Empty<Elements.Element, Failure> {
    Empty()
  }

  /// Publishes the elements of the sequence combined with the closure.
  ///
  /// ```swift
  /// let p: Result<Int, Never>.Publisher = (1...4).publisher.reduce(0, +)
  /// ```
  public func reduce<T>(
    _ initialResult: T, _ nextPartialResult: @escaping (T, Elements.Element) -> T
  ) -> Result<T, Failure>.Publisher {
    Result.Publisher(sequence.reduce(initialResult, nextPartialResult))
  }

  /// Publishes the elements of the sequence combined with the throwing closure, or the error
  /// it throws.
  ///
  /// ```swift
  /// let p: Result<Int, any Error>.Publisher = (1...4).publisher.tryReduce(0) { $0 + $1 }
  /// ```
  public func tryReduce<T>(
    _ initialResult: T, _ nextPartialResult: @escaping (T, Elements.Element) throws -> T
  ) -> Result<T, any Error>.Publisher {
    Result.Publisher(Result { try sequence.reduce(initialResult, nextPartialResult) })
  }
}

extension Publishers.Sequence where Elements.Element: Equatable {
  /// Publishes whether the sequence contains the element.
  ///
  /// ```swift
  /// let p: Result<Bool, Never>.Publisher = [1, 5].publisher.contains(5)
  /// ```
  public func contains(_ output: Elements.Element) -> Result<Bool, Failure>.Publisher {
    Result.Publisher(sequence.contains(output))
  }
}

extension Publishers.Sequence where Failure == Never, Elements.Element: Comparable {
  /// Publishes the minimum element of the sequence, or nothing for an empty sequence.
  ///
  /// ```swift
  /// let p: Optional<Int>.Publisher = [3, 1, 2].publisher.min()
  /// ```
  public func min() -> Optional<Elements.Element>.Publisher {
    Optional.Publisher(sequence.min())
  }

  /// Publishes the maximum element of the sequence, or nothing for an empty sequence.
  ///
  /// ```swift
  /// let p: Optional<Int>.Publisher = [3, 1, 2].publisher.max()
  /// ```
  public func max() -> Optional<Elements.Element>.Publisher {
    Optional.Publisher(sequence.max())
  }
}

extension Publishers.Sequence where Elements: Collection, Failure == Never {
  /// Publishes the first element of the collection, or nothing for an empty collection.
  ///
  /// ```swift
  /// let p: Optional<Int>.Publisher = [3, 1, 2].publisher.first()
  /// ```
  public func first() -> Optional<Elements.Element>.Publisher {
    Optional.Publisher(sequence.first)
  }

  /// Publishes the element at the index, or nothing when the index is out of bounds.
  ///
  /// ```swift
  /// let p: Optional<Character>.Publisher = "abc".publisher.output(at: "abc".startIndex)
  /// ```
  public func output(at index: Elements.Index) -> Optional<Elements.Element>.Publisher {
    Optional.Publisher(sequence.indices.contains(index) ? sequence[index] : nil)
  }
}

extension Publishers.Sequence where Elements: Collection {
  /// Publishes the number of elements in the collection.
  ///
  /// ```swift
  /// let p: Result<Int, Never>.Publisher = Set([1, 2]).publisher.count()
  /// ```
  public func count() -> Result<Int, Failure>.Publisher {
    Result.Publisher(sequence.count)
  }

  /// Publishes the elements of the collection in the range.
  ///
  /// - Precondition: `range` lies within the collection's bounds.
  ///
  /// ```swift
  /// let text = "abcd"
  /// let p = text.publisher.output(in: text.startIndex..<text.index(after: text.startIndex))
  /// ```
  public func output(in range: Range<Elements.Index>) -> Publishers.Sequence<[Elements.Element], Failure> {
    Publishers.Sequence(sequence: Array(sequence[range]))
  }
}

extension Publishers.Sequence where Elements: BidirectionalCollection, Failure == Never {
  /// Publishes the last element of the collection, or nothing for an empty collection.
  ///
  /// ```swift
  /// let p: Optional<Int>.Publisher = [3, 1, 2].publisher.last()
  /// ```
  public func last() -> Optional<Elements.Element>.Publisher {
    Optional.Publisher(sequence.last)
  }

  /// Publishes the last element of the collection that satisfies the predicate, or nothing.
  ///
  /// ```swift
  /// let p: Optional<Int>.Publisher = [1, 4, 6, 7].publisher.last { $0.isMultiple(of: 2) }
  /// ```
  public func last(where predicate: (Elements.Element) -> Bool) -> Optional<Elements.Element>.Publisher {
    Optional.Publisher(sequence.last(where: predicate))
  }
}

extension Publishers.Sequence where Elements: RandomAccessCollection, Failure == Never {
  /// Publishes the element at the index, or nothing when the index is out of bounds.
  ///
  /// ```swift
  /// let p: Optional<Int>.Publisher = [3, 1, 2].publisher.output(at: 1)
  /// ```
  public func output(at index: Elements.Index) -> Optional<Elements.Element>.Publisher {
    Optional.Publisher(sequence.indices.contains(index) ? sequence[index] : nil)
  }

  /// Publishes the number of elements in the collection.
  ///
  /// ```swift
  /// let p: Just<Int> = [3, 1, 2].publisher.count()
  /// ```
  public func count() -> Just<Int> {
    Just(sequence.count)
  }
}

extension Publishers.Sequence where Elements: RandomAccessCollection {
  /// Publishes the elements of the collection in the range.
  ///
  /// - Precondition: `range` lies within the collection's bounds.
  ///
  /// ```swift
  /// let p: Publishers.Sequence<[Int], Never> = [3, 1, 2].publisher.output(in: 1..<3)
  /// ```
  public func output(in range: Range<Elements.Index>) -> Publishers.Sequence<[Elements.Element], Failure> {
    Publishers.Sequence(sequence: Array(sequence[range]))
  }

  /// Publishes the number of elements in the collection.
  ///
  /// ```swift
  /// let p: Result<Int, MyError>.Publisher = Publishers.Sequence<[Int], MyError>(sequence: [1]).count()
  /// ```
  public func count() -> Result<Int, Failure>.Publisher {
    Result.Publisher(sequence.count)
  }
}

// Combine's specialised operators on `Publishers.Sequence`: each is applied to the sequence at
// once (an eager array, as Combine returns) and the result is another `Publishers.Sequence`.

extension Publishers.Sequence {
  /// Transforms every element of the sequence at once; returns a publisher of the results.
  ///
  /// ```swift
  /// let p: Publishers.Sequence<[Int], Never> = [1, 2, 3].publisher.map { $0 * 10 }
  /// ```
  @inlinable
  public func map<T>(_ transform: (Elements.Element) -> T) -> Publishers.Sequence<[T], Failure> {
    Publishers.Sequence<[T], Failure>(sequence: sequence.map(transform))
  }

  /// Keeps the elements that match the closure, at once; returns a publisher of them.
  ///
  /// ```swift
  /// let p: Publishers.Sequence<[Int], Never> = [1, 2, 3, 4].publisher.filter { $0.isMultiple(of: 2) }
  /// ```
  @inlinable
  public func filter(_ isIncluded: (Elements.Element) -> Bool) -> Publishers.Sequence<[Elements.Element], Failure> {
    Publishers.Sequence<[Elements.Element], Failure>(sequence: sequence.filter(isIncluded))
  }

  /// Transforms every element at once and keeps the non-`nil` results.
  ///
  /// ```swift
  /// let p: Publishers.Sequence<[Int], Never> = ["1", "x", "3"].publisher.compactMap { Int($0) }
  /// ```
  @inlinable
  public func compactMap<T>(_ transform: (Elements.Element) -> T?) -> Publishers.Sequence<[T], Failure> {
    Publishers.Sequence<[T], Failure>(sequence: sequence.compactMap(transform))
  }

  /// Replaces the `nil` elements with `output`, at once. As in Combine, the elements keep their
  /// optional type.
  ///
  /// ```swift
  /// let p: Publishers.Sequence<[Int?], Never> = [1, nil, 3].publisher.replaceNil(with: 0)
  /// ```
  @inlinable
  public func replaceNil<T>(with output: T) -> Publishers.Sequence<[Elements.Element], Failure>
  where Elements.Element == T? {
    Publishers.Sequence<[Elements.Element], Failure>(sequence: sequence.map { $0 ?? output })
  }

  /// Computes every running result at once; returns a publisher of them.
  ///
  /// ```swift
  /// let p: Publishers.Sequence<[Int], Never> = [1, 2, 3].publisher.scan(0, +)   // 1, 3, 6
  /// ```
  @inlinable
  public func scan<T>(
    _ initialResult: T, _ nextPartialResult: @escaping (T, Elements.Element) -> T
  ) -> Publishers.Sequence<[T], Failure> {
    var accumulator = initialResult
    return Publishers.Sequence<[T], Failure>(
      sequence: sequence.map { element in
        accumulator = nextPartialResult(accumulator, element)
        return accumulator
      })
  }

  /// Changes the failure type; the sequence still never fails.
  ///
  /// ```swift
  /// let p: Publishers.Sequence<[Int], MyError> = [1, 2].publisher.setFailureType(to: MyError.self)
  /// ```
  @inlinable
  public func setFailureType<E: Error>(to error: E.Type) -> Publishers.Sequence<Elements, E> {
    Publishers.Sequence<Elements, E>(sequence: sequence)
  }
}

extension Publishers.Sequence where Elements.Element: Equatable {
  /// Drops each element equal to the one before it, at once.
  ///
  /// ```swift
  /// let p: Publishers.Sequence<[Int], Never> = [1, 1, 2, 1].publisher.removeDuplicates()   // 1, 2, 1
  /// ```
  @inlinable
  public func removeDuplicates() -> Publishers.Sequence<[Elements.Element], Failure> {
    var kept: [Elements.Element] = []
    kept.reserveCapacity(sequence.underestimatedCount)
    for element in sequence where kept.last != element {
      kept.append(element)
    }
    return Publishers.Sequence<[Elements.Element], Failure>(sequence: kept)
  }
}

// Combine's specialised reducing, matching and selecting operators on `Optional.Publisher`: the
// value (if any) is known, so each operator is applied at once and returns another
// `Optional.Publisher` (or `Empty`).
//
// As in Combine, an empty `Optional.Publisher` stays empty under `count()`, `contains`,
// `allSatisfy` and `reduce` (the generic operators would publish 0, false, true or the initial
// result); only `collect()` publishes an empty array.

extension Optional.Publisher where Wrapped: Comparable {
  /// The minimum of at most one value is that value: returns this publisher.
  ///
  /// ```swift
  /// let same: Optional<Int>.Publisher = Optional(3).publisher.min()   // publishes 3
  /// ```
  public func min() -> Optional<Wrapped>.Publisher {
    self
  }

  /// The maximum of at most one value is that value: returns this publisher.
  ///
  /// ```swift
  /// let same: Optional<Int>.Publisher = Optional(3).publisher.max()   // publishes 3
  /// ```
  public func max() -> Optional<Wrapped>.Publisher {
    self
  }
}

extension Optional.Publisher where Wrapped: Equatable {
  /// Compares the value, if any, with `output`, at once; publishes whether they are equal, or
  /// nothing if there is no value.
  ///
  /// ```swift
  /// let found: Optional<Bool>.Publisher = Optional(3).publisher.contains(3)   // publishes true
  /// ```
  public func contains(_ output: Wrapped) -> Optional<Bool>.Publisher {
    Optional<Bool>.Publisher(self.output.map { $0 == output })
  }
}

extension Optional.Publisher {
  /// Tests the value, if any, with a closure, at once; publishes whether it satisfies it, or
  /// nothing if there is no value.
  ///
  /// ```swift
  /// let even: Optional<Bool>.Publisher = Optional(4).publisher.allSatisfy { $0 > 0 }   // true
  /// ```
  public func allSatisfy(_ predicate: (Wrapped) -> Bool) -> Optional<Bool>.Publisher {
    Optional<Bool>.Publisher(output.map(predicate))
  }

  /// Publishes the value, if any, in a one-element array; an empty array if there is none.
  ///
  /// ```swift
  /// let all: Optional<[Int]>.Publisher = Optional<Int>.none.publisher.collect()   // publishes []
  /// ```
  public func collect() -> Optional<[Wrapped]>.Publisher {
    Optional<[Wrapped]>.Publisher(output.map { [$0] } ?? [])
  }

  /// The minimum of at most one value is that value: returns this publisher without calling
  /// `areInIncreasingOrder`.
  ///
  /// ```swift
  /// let same = Optional("fig").publisher.min { $0.count < $1.count }   // publishes "fig"
  /// ```
  public func min(by areInIncreasingOrder: (Wrapped, Wrapped) -> Bool) -> Optional<Wrapped>.Publisher {
    self
  }

  /// The maximum of at most one value is that value: returns this publisher without calling
  /// `areInIncreasingOrder`.
  ///
  /// ```swift
  /// let same = Optional("fig").publisher.max { $0.count < $1.count }   // publishes "fig"
  /// ```
  public func max(by areInIncreasingOrder: (Wrapped, Wrapped) -> Bool) -> Optional<Wrapped>.Publisher {
    self
  }

  /// Tests the value, if any, with a closure, at once; publishes whether it satisfies it, or
  /// nothing if there is no value.
  ///
  /// ```swift
  /// let big: Optional<Bool>.Publisher = Optional(4).publisher.contains { $0 > 10 }   // false
  /// ```
  public func contains(where predicate: (Wrapped) -> Bool) -> Optional<Bool>.Publisher {
    Optional<Bool>.Publisher(output.map(predicate))
  }

  /// Publishes 1 if there is a value; nothing if there is none.
  ///
  /// ```swift
  /// let one: Optional<Int>.Publisher = Optional("a").publisher.count()   // publishes 1
  /// ```
  public func count() -> Optional<Int>.Publisher {
    Optional<Int>.Publisher(output.map { _ in 1 })
  }

  /// The first value is the only value: returns this publisher.
  ///
  /// ```swift
  /// let same: Optional<Int>.Publisher = Optional(1).publisher.first()   // publishes 1
  /// ```
  public func first() -> Optional<Wrapped>.Publisher {
    self
  }

  /// Tests the value, if any, with a closure, at once; publishes it only if it satisfies it.
  ///
  /// ```swift
  /// let none: Optional<Int>.Publisher = Optional(3).publisher.first { $0 > 5 }   // empty
  /// ```
  public func first(where predicate: (Wrapped) -> Bool) -> Optional<Wrapped>.Publisher {
    Optional<Wrapped>.Publisher(output.flatMap { predicate($0) ? $0 : nil })
  }

  /// The last value is the only value: returns this publisher.
  ///
  /// ```swift
  /// let same: Optional<Int>.Publisher = Optional(1).publisher.last()   // publishes 1
  /// ```
  public func last() -> Optional<Wrapped>.Publisher {
    self
  }

  /// Tests the value, if any, with a closure, at once; publishes it only if it satisfies it.
  ///
  /// ```swift
  /// let kept: Optional<Int>.Publisher = Optional(7).publisher.last { $0 > 5 }   // publishes 7
  /// ```
  public func last(where predicate: (Wrapped) -> Bool) -> Optional<Wrapped>.Publisher {
    Optional<Wrapped>.Publisher(output.flatMap { predicate($0) ? $0 : nil })
  }

  /// Drops the value, if any, and only finishes.
  ///
  /// ```swift
  /// let done: Empty<Int, Never> = Optional(1).publisher.ignoreOutput()   // finishes
  /// ```
  public func ignoreOutput() -> Empty<Wrapped, Never> {
    Empty<Wrapped, Never>()
  }

  /// Applies the accumulating closure to the initial result and the value, if any, at once;
  /// publishes nothing if there is no value.
  ///
  /// ```swift
  /// let sum: Optional<Int>.Publisher = Optional(5).publisher.reduce(10, +)   // publishes 15
  /// ```
  public func reduce<T>(_ initialResult: T, _ nextPartialResult: (T, Wrapped) -> T) -> Optional<T>.Publisher {
    Optional<T>.Publisher(output.map { nextPartialResult(initialResult, $0) })
  }

  /// Publishes the value, if any, when `index` is 0; finishes empty otherwise.
  ///
  /// ```swift
  /// let one: Optional<Int>.Publisher = Optional(1).publisher.output(at: 0)   // publishes 1
  /// ```
  ///
  /// - Precondition: `index` is not negative.
  public func output(at index: Int) -> Optional<Wrapped>.Publisher {
    precondition(index >= 0, "output(at: \(index)): the index must not be negative; element indices start at 0")
    return Optional<Wrapped>.Publisher(index == 0 ? output : nil)
  }

  /// Publishes the value, if any, when `range` contains index 0; finishes empty otherwise.
  ///
  /// ```swift
  /// let one: Optional<Int>.Publisher = Optional(1).publisher.output(in: 0...3)   // publishes 1
  /// ```
  ///
  /// - Precondition: `range` does not start below 0, and ends below `Int.max - 1` (Combine's
  ///   bound: `output(in: 0...)` stops the process there too).
  public func output<R: RangeExpression>(in range: R) -> Optional<Wrapped>.Publisher where R.Bound == Int {
    let range = range.relative(to: 0..<Int.max)
    precondition(
      range.lowerBound >= 0,
      "output(in: \(range)): the range must not start below 0; element indices start at 0")
    // Combine's own precondition, kept so that a range Combine rejects is rejected here too.
    precondition(
      range.upperBound < .max - 1,
      "output(in: \(range)): the range must end below Int.max - 1, as in Combine; use output(at: 0) for the value")
    return Optional<Wrapped>.Publisher(range.contains(0) ? output : nil)
  }
}

// Combine's specialised reducing, matching and selecting operators on `Just`: there is exactly
// one value, so each operator is applied at once and returns a single-value publisher (or
// `Empty`) instead of an aggregating pipeline.

extension Just where Output: Comparable {
  /// The minimum of one value is that value: returns this publisher.
  ///
  /// ```swift
  /// let same: Just<Int> = Just(3).min()   // publishes 3
  /// ```
  public func min() -> Just<Output> {
    self
  }

  /// The maximum of one value is that value: returns this publisher.
  ///
  /// ```swift
  /// let same: Just<Int> = Just(3).max()   // publishes 3
  /// ```
  public func max() -> Just<Output> {
    self
  }
}

extension Just where Output: Equatable {
  /// Compares the value with `output`, at once; publishes whether they are equal.
  ///
  /// ```swift
  /// let found: Just<Bool> = Just(3).contains(3)   // publishes true
  /// ```
  public func contains(_ output: Output) -> Just<Bool> {
    Just<Bool>(self.output == output)
  }
}

extension Just {
  /// Tests the value with a closure, at once; publishes whether it satisfies it.
  ///
  /// ```swift
  /// let even: Just<Bool> = Just(4).allSatisfy { $0.isMultiple(of: 2) }   // publishes true
  /// ```
  public func allSatisfy(_ predicate: (Output) -> Bool) -> Just<Bool> {
    Just<Bool>(predicate(output))
  }

  /// Tests the value with an error-throwing closure, at once; publishes whether it satisfies
  /// it, or fails with the error the closure throws.
  ///
  /// ```swift
  /// let p: Result<Bool, any Error>.Publisher = Just("7").tryAllSatisfy { try parse($0) > 0 }
  /// ```
  public func tryAllSatisfy(_ predicate: (Output) throws -> Bool) -> Result<Bool, any Error>.Publisher {
    Result<Bool, any Error>.Publisher(Result { try predicate(output) })
  }

  /// Tests the value with a closure, at once; publishes whether it satisfies it.
  ///
  /// ```swift
  /// let big: Just<Bool> = Just(4).contains { $0 > 10 }   // publishes false
  /// ```
  public func contains(where predicate: (Output) -> Bool) -> Just<Bool> {
    Just<Bool>(predicate(output))
  }

  /// Tests the value with an error-throwing closure, at once; publishes whether it satisfies
  /// it, or fails with the error the closure throws.
  ///
  /// ```swift
  /// let p: Result<Bool, any Error>.Publisher = Just("7").tryContains { try parse($0) > 5 }
  /// ```
  public func tryContains(where predicate: (Output) throws -> Bool) -> Result<Bool, any Error>.Publisher {
    Result<Bool, any Error>.Publisher(Result { try predicate(output) })
  }

  /// Publishes the value in a one-element array.
  ///
  /// ```swift
  /// let all: Just<[Int]> = Just(1).collect()   // publishes [1]
  /// ```
  public func collect() -> Just<[Output]> {
    Just<[Output]>([output])
  }

  /// The minimum of one value is that value: returns this publisher without calling
  /// `areInIncreasingOrder`.
  ///
  /// ```swift
  /// let same: Just<String> = Just("fig").min { $0.count < $1.count }   // publishes "fig"
  /// ```
  public func min(by areInIncreasingOrder: (Output, Output) -> Bool) -> Just<Output> {
    self
  }

  /// The maximum of one value is that value: returns this publisher without calling
  /// `areInIncreasingOrder`.
  ///
  /// ```swift
  /// let same: Just<String> = Just("fig").max { $0.count < $1.count }   // publishes "fig"
  /// ```
  public func max(by areInIncreasingOrder: (Output, Output) -> Bool) -> Just<Output> {
    self
  }

  /// Publishes the number of values, which is always 1.
  ///
  /// ```swift
  /// let one: Just<Int> = Just("a").count()   // publishes 1
  /// ```
  public func count() -> Just<Int> {
    Just<Int>(1)
  }

  /// The first value is the only value: returns this publisher.
  ///
  /// ```swift
  /// let same: Just<Int> = Just(1).first()   // publishes 1
  /// ```
  public func first() -> Just<Output> {
    self
  }

  /// Tests the value with a closure, at once; publishes it only if it satisfies it.
  ///
  /// ```swift
  /// let none: Optional<Int>.Publisher = Just(3).first { $0 > 5 }   // finishes empty
  /// ```
  public func first(where predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
    Optional<Output>.Publisher(predicate(output) ? output : nil)
  }

  /// The last value is the only value: returns this publisher.
  ///
  /// ```swift
  /// let same: Just<Int> = Just(1).last()   // publishes 1
  /// ```
  public func last() -> Just<Output> {
    self
  }

  /// Tests the value with a closure, at once; publishes it only if it satisfies it.
  ///
  /// ```swift
  /// let kept: Optional<Int>.Publisher = Just(7).last { $0 > 5 }   // publishes 7
  /// ```
  public func last(where predicate: (Output) -> Bool) -> Optional<Output>.Publisher {
    Optional<Output>.Publisher(predicate(output) ? output : nil)
  }

  /// Drops the value and only finishes.
  ///
  /// ```swift
  /// let done: Empty<Int, Never> = Just(1).ignoreOutput()   // finishes without a value
  /// ```
  public func ignoreOutput() -> Empty<Output, Never> {
    Empty<Output, Never>()
  }

  /// Applies the accumulating closure to the initial result and the value, at once.
  ///
  /// ```swift
  /// let sum: Result<Int, Never>.Publisher = Just(5).reduce(10, +)   // publishes 15
  /// ```
  public func reduce<T>(_ initialResult: T, _ nextPartialResult: (T, Output) -> T) -> Result<T, Never>.Publisher {
    Result<T, Never>.Publisher(nextPartialResult(initialResult, output))
  }

  /// Applies the error-throwing accumulating closure to the initial result and the value, at
  /// once; publishes the result, or fails with the error the closure throws.
  ///
  /// ```swift
  /// let p: Result<Int, any Error>.Publisher = Just(5).tryReduce(10) { try checkedAdd($0, $1) }
  /// ```
  public func tryReduce<T>(
    _ initialResult: T, _ nextPartialResult: (T, Output) throws -> T
  ) -> Result<T, any Error>.Publisher {
    Result<T, any Error>.Publisher(Result { try nextPartialResult(initialResult, output) })
  }

  /// Publishes the value if `index` is 0; finishes empty otherwise.
  ///
  /// ```swift
  /// let one: Optional<Int>.Publisher = Just(1).output(at: 0)   // publishes 1
  /// ```
  ///
  /// - Precondition: `index` is not negative.
  public func output(at index: Int) -> Optional<Output>.Publisher {
    precondition(index >= 0, "output(at: \(index)): the index must not be negative; element indices start at 0")
    return Optional<Output>.Publisher(index == 0 ? output : nil)
  }

  /// Publishes the value if `range` starts at index 0; finishes empty otherwise.
  ///
  /// As in Combine, only the start of the range counts: `Just(1).output(in: 0..<0)` publishes
  /// 1, and a range that starts below 0 finishes empty rather than stopping the process.
  ///
  /// ```swift
  /// let one: Optional<Int>.Publisher = Just(1).output(in: 0...3)   // publishes 1
  /// ```
  public func output<R: RangeExpression>(in range: R) -> Optional<Output>.Publisher where R.Bound == Int {
    Optional<Output>.Publisher(range.relative(to: 0..<Int.max).lowerBound == 0 ? output : nil)
  }
}

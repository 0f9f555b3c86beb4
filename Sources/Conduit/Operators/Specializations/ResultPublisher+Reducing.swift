// Combine's specialised reducing, matching and selecting operators on `Result.Publisher`: the
// result is known, so each operator is applied at once and returns another `Result.Publisher`
// (or `Empty`). A failure passes through unchanged and no closure is called for it.

extension Result.Publisher where Output: Comparable {
  /// The minimum of one value is that value: returns this publisher.
  ///
  /// ```swift
  /// let same = Result<Int, MyError>.success(3).publisher.min()   // publishes 3
  /// ```
  public func min() -> Result<Output, Failure>.Publisher {
    self
  }

  /// The maximum of one value is that value: returns this publisher.
  ///
  /// ```swift
  /// let same = Result<Int, MyError>.success(3).publisher.max()   // publishes 3
  /// ```
  public func max() -> Result<Output, Failure>.Publisher {
    self
  }
}

extension Result.Publisher where Output: Equatable {
  /// Compares the success value with `output`, at once; publishes whether they are equal.
  ///
  /// ```swift
  /// let p: Result<Bool, MyError>.Publisher = Result<Int, MyError>.success(3).publisher.contains(3)
  /// ```
  public func contains(_ output: Output) -> Result<Bool, Failure>.Publisher {
    Result<Bool, Failure>.Publisher(result.map { $0 == output })
  }
}

extension Result.Publisher {
  /// Tests the success value with a closure, at once; publishes whether it satisfies it.
  ///
  /// ```swift
  /// let p: Result<Bool, MyError>.Publisher = Result<Int, MyError>.success(4).publisher
  ///     .allSatisfy { $0 > 0 }   // publishes true
  /// ```
  public func allSatisfy(_ predicate: (Output) -> Bool) -> Result<Bool, Failure>.Publisher {
    Result<Bool, Failure>.Publisher(result.map(predicate))
  }

  /// Tests the success value with an error-throwing closure, at once; publishes whether it
  /// satisfies it, or fails with the error the closure throws.
  ///
  /// ```swift
  /// let p: Result<Bool, any Error>.Publisher = Result<String, MyError>.success("7").publisher
  ///     .tryAllSatisfy { try parse($0) > 0 }
  /// ```
  public func tryAllSatisfy(_ predicate: (Output) throws -> Bool) -> Result<Bool, any Error>.Publisher {
    tryMap(predicate)
  }

  /// Tests the success value with a closure, at once; publishes whether it satisfies it.
  ///
  /// ```swift
  /// let p: Result<Bool, MyError>.Publisher = Result<Int, MyError>.success(4).publisher
  ///     .contains { $0 > 10 }   // publishes false
  /// ```
  public func contains(where predicate: (Output) -> Bool) -> Result<Bool, Failure>.Publisher {
    Result<Bool, Failure>.Publisher(result.map(predicate))
  }

  /// Tests the success value with an error-throwing closure, at once; publishes whether it
  /// satisfies it, or fails with the error the closure throws.
  ///
  /// ```swift
  /// let p: Result<Bool, any Error>.Publisher = Result<String, MyError>.success("7").publisher
  ///     .tryContains { try parse($0) > 5 }
  /// ```
  public func tryContains(where predicate: (Output) throws -> Bool) -> Result<Bool, any Error>.Publisher {
    tryMap(predicate)
  }

  /// Publishes the success value in a one-element array.
  ///
  /// ```swift
  /// let p: Result<[Int], MyError>.Publisher = Result<Int, MyError>.success(1).publisher.collect()
  /// ```
  public func collect() -> Result<[Output], Failure>.Publisher {
    Result<[Output], Failure>.Publisher(result.map { [$0] })
  }

  /// The minimum of one value is that value: returns this publisher without calling
  /// `areInIncreasingOrder`.
  ///
  /// ```swift
  /// let same = Result<String, MyError>.success("fig").publisher.min { $0.count < $1.count }
  /// ```
  public func min(by areInIncreasingOrder: (Output, Output) -> Bool) -> Result<Output, Failure>.Publisher {
    self
  }

  /// The minimum of one value is that value; the closure is still evaluated once, on the
  /// success value against itself, and an error it throws becomes the failure (as in Combine).
  ///
  /// ```swift
  /// let p: Result<Int, any Error>.Publisher = Result<Int, MyError>.success(3).publisher
  ///     .tryMin { try ordered($0, $1) }
  /// ```
  public func tryMin(
    by areInIncreasingOrder: (Output, Output) throws -> Bool
  ) -> Result<Output, any Error>.Publisher {
    tryMap { value in
      _ = try areInIncreasingOrder(value, value)
      return value
    }
  }

  /// The maximum of one value is that value: returns this publisher without calling
  /// `areInIncreasingOrder`.
  ///
  /// ```swift
  /// let same = Result<String, MyError>.success("fig").publisher.max { $0.count < $1.count }
  /// ```
  public func max(by areInIncreasingOrder: (Output, Output) -> Bool) -> Result<Output, Failure>.Publisher {
    self
  }

  /// The maximum of one value is that value; the closure is still evaluated once, on the
  /// success value against itself, and an error it throws becomes the failure (as in Combine).
  ///
  /// ```swift
  /// let p: Result<Int, any Error>.Publisher = Result<Int, MyError>.success(3).publisher
  ///     .tryMax { try ordered($0, $1) }
  /// ```
  public func tryMax(
    by areInIncreasingOrder: (Output, Output) throws -> Bool
  ) -> Result<Output, any Error>.Publisher {
    tryMap { value in
      _ = try areInIncreasingOrder(value, value)
      return value
    }
  }

  /// Publishes the number of values, which is 1 for a success.
  ///
  /// ```swift
  /// let p: Result<Int, MyError>.Publisher = Result<String, MyError>.success("a").publisher.count()
  /// ```
  public func count() -> Result<Int, Failure>.Publisher {
    Result<Int, Failure>.Publisher(result.map { _ in 1 })
  }

  /// The first value is the only value: returns this publisher.
  ///
  /// ```swift
  /// let same = Result<Int, MyError>.success(1).publisher.first()   // publishes 1
  /// ```
  public func first() -> Result<Output, Failure>.Publisher {
    self
  }

  /// The last value is the only value: returns this publisher.
  ///
  /// ```swift
  /// let same = Result<Int, MyError>.success(1).publisher.last()   // publishes 1
  /// ```
  public func last() -> Result<Output, Failure>.Publisher {
    self
  }

  /// Drops the value and only finishes.
  ///
  /// As in Combine, the returned `Empty` finishes even when the result is a failure: the
  /// failure is dropped too.
  ///
  /// ```swift
  /// let done: Empty<Int, MyError> = Result<Int, MyError>.success(1).publisher.ignoreOutput()
  /// ```
  public func ignoreOutput() -> Empty<Output, Failure> {
    Empty<Output, Failure>()
  }

  /// Applies the accumulating closure to the initial result and the success value, at once.
  ///
  /// ```swift
  /// let p: Result<Int, MyError>.Publisher = Result<Int, MyError>.success(5).publisher
  ///     .reduce(10, +)   // publishes 15
  /// ```
  public func reduce<T>(_ initialResult: T, _ nextPartialResult: (T, Output) -> T) -> Result<T, Failure>.Publisher {
    Result<T, Failure>.Publisher(result.map { nextPartialResult(initialResult, $0) })
  }

  /// Applies the error-throwing accumulating closure to the initial result and the success
  /// value, at once; publishes the result, or fails with the error the closure throws.
  ///
  /// ```swift
  /// let p: Result<Int, any Error>.Publisher = Result<Int, MyError>.success(5).publisher
  ///     .tryReduce(10) { try checkedAdd($0, $1) }
  /// ```
  public func tryReduce<T>(
    _ initialResult: T, _ nextPartialResult: (T, Output) throws -> T
  ) -> Result<T, any Error>.Publisher {
    tryMap { try nextPartialResult(initialResult, $0) }
  }
}

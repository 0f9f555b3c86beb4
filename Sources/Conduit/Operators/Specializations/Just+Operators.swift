// Combine's specialised operators on `Just`: the value is known, so each operator is applied at
// once and returns a single-value publisher instead of an operator chain.

extension Just {
  /// Transforms the value with a closure, applied at once; returns a `Just` of the result.
  ///
  /// ```swift
  /// let doubled: Just<Int> = Just(21).map { $0 * 2 }   // Just(42)
  /// ```
  public func map<T>(_ transform: (Output) -> T) -> Just<T> {
    Just<T>(transform(output))
  }

  /// Transforms the value with an error-throwing closure, applied at once; returns a publisher
  /// of the result, or of the thrown error.
  ///
  /// ```swift
  /// let parsed: Result<Int, any Error>.Publisher = Just("42").tryMap { try parse($0) }
  /// ```
  public func tryMap<T>(_ transform: (Output) throws -> T) -> Result<T, any Error>.Publisher {
    Result<T, any Error>.Publisher(Result { try transform(output) })
  }

  /// Calls a closure with the value, at once; publishes the result if it is not `nil`.
  ///
  /// ```swift
  /// let number: Optional<Int>.Publisher = Just("7").compactMap { Int($0) }   // publishes 7
  /// ```
  public func compactMap<T>(_ transform: (Output) -> T?) -> Optional<T>.Publisher {
    Optional<T>.Publisher(transform(output))
  }

  /// Tests the value with a closure, at once; publishes it only if it matches.
  ///
  /// ```swift
  /// let even: Optional<Int>.Publisher = Just(3).filter { $0.isMultiple(of: 2) }   // finishes empty
  /// ```
  public func filter(_ isIncluded: (Output) -> Bool) -> Optional<Output>.Publisher {
    Optional<Output>.Publisher(isIncluded(output) ? output : nil)
  }

  /// Changes the failure type; the value still always succeeds.
  ///
  /// ```swift
  /// let p: Result<Int, MyError>.Publisher = Just(1).setFailureType(to: MyError.self)
  /// ```
  public func setFailureType<E: Error>(to failureType: E.Type) -> Result<Output, E>.Publisher {
    Result<Output, E>.Publisher(output)
  }

  /// Changes the failure type; `Just` never fails, so `transform` is never called.
  ///
  /// ```swift
  /// let p: Result<Int, MyError>.Publisher = Just(1).mapError { _ in MyError() }
  /// ```
  public func mapError<E: Error>(_ transform: (Never) -> E) -> Result<Output, E>.Publisher {
    Result<Output, E>.Publisher(output)
  }

  /// A single value has no duplicates: returns this publisher.
  ///
  /// ```swift
  /// let same: Just<Int> = Just(1).removeDuplicates { $0 == $1 }
  /// ```
  public func removeDuplicates(by predicate: (Output, Output) -> Bool) -> Just<Output> {
    self
  }

  /// A single value has no duplicates; the predicate is still evaluated once, on the value
  /// against itself, and an error it throws becomes the failure (as in Combine).
  ///
  /// ```swift
  /// let p: Result<Int, any Error>.Publisher = Just(1).tryRemoveDuplicates { try same($0, $1) }
  /// ```
  public func tryRemoveDuplicates(by predicate: (Output, Output) throws -> Bool) -> Result<Output, any Error>.Publisher
  {
    Result<Output, any Error>.Publisher(
      Result {
        _ = try predicate(output, output)
        return output
      })
  }

  /// `Just` never fails: returns this publisher.
  ///
  /// ```swift
  /// let same: Just<Int> = Just(1).replaceError(with: 0)
  /// ```
  public func replaceError(with output: Output) -> Just<Output> {
    self
  }

  /// `Just` never fails, so there is nothing to retry: returns this publisher.
  ///
  /// ```swift
  /// let same: Just<Int> = Just(1).retry(3)   // publishes 1
  /// ```
  public func retry(_ times: Int) -> Just<Output> {
    self
  }

  /// Applies the accumulating closure to the initial result and the value, at once.
  ///
  /// ```swift
  /// let sum: Result<Int, Never>.Publisher = Just(5).scan(10, +)   // publishes 15
  /// ```
  public func scan<T>(_ initialResult: T, _ nextPartialResult: (T, Output) -> T) -> Result<T, Never>.Publisher {
    Result<T, Never>.Publisher(nextPartialResult(initialResult, output))
  }

  /// Applies the error-throwing accumulating closure to the initial result and the value, at
  /// once.
  ///
  /// ```swift
  /// let p: Result<Int, any Error>.Publisher = Just(5).tryScan(10) { try checkedAdd($0, $1) }
  /// ```
  public func tryScan<T>(
    _ initialResult: T, _ nextPartialResult: (T, Output) throws -> T
  ) -> Result<T, any Error>.Publisher {
    Result<T, any Error>.Publisher(Result { try nextPartialResult(initialResult, output) })
  }
}

extension Just where Output: Equatable {
  /// A single value has no duplicates: returns this publisher.
  ///
  /// ```swift
  /// let same: Just<Int> = Just(1).removeDuplicates()
  /// ```
  public func removeDuplicates() -> Just<Output> {
    self
  }
}

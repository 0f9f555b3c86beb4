// Combine's specialised operators on `Result.Publisher`: the result is known, so each operator
// is applied at once and returns another `Result.Publisher`.

extension Result.Publisher {
  /// Transforms the success value with a closure applied at once; a failure stays a failure.
  ///
  /// ```swift
  /// let p: Result<String, MyError>.Publisher = Result<Int, MyError>.success(1).publisher.map { "\($0)" }
  /// ```
  public func map<T>(_ transform: (Output) -> T) -> Result<T, Failure>.Publisher {
    Result<T, Failure>.Publisher(result.map(transform))
  }

  /// Transforms the success value with an error-throwing closure applied at once; a thrown
  /// error becomes the failure.
  ///
  /// ```swift
  /// let p: Result<Int, any Error>.Publisher = Result<String, MyError>.success("1").publisher
  ///     .tryMap { try parse($0) }
  /// ```
  public func tryMap<T>(_ transform: (Output) throws -> T) -> Result<T, any Error>.Publisher {
    Result<T, any Error>.Publisher(
      Result<T, any Error> {
        switch result {
        case .success(let value): return try transform(value)
        case .failure(let error): throw error
        }
      })
  }

  /// Converts the failure, if any, with a closure applied at once.
  ///
  /// ```swift
  /// let p: Result<Int, AppError>.Publisher = Result<Int, URLError>.failure(URLError(.badURL)).publisher
  ///     .mapError { AppError.network($0) }
  /// ```
  public func mapError<E: Error>(_ transform: (Failure) -> E) -> Result<Output, E>.Publisher {
    Result<Output, E>.Publisher(result.mapError(transform))
  }

  /// A single value has no duplicates: returns this publisher.
  ///
  /// ```swift
  /// let same = Result<Int, MyError>.success(1).publisher.removeDuplicates { $0 == $1 }
  /// ```
  public func removeDuplicates(by predicate: (Output, Output) -> Bool) -> Result<Output, Failure>.Publisher {
    self
  }

  /// A single value has no duplicates; the predicate is still evaluated once, on the success
  /// value against itself, and an error it throws becomes the failure (as in Combine).
  ///
  /// ```swift
  /// let p = Result<Int, MyError>.success(1).publisher.tryRemoveDuplicates { try same($0, $1) }
  /// ```
  public func tryRemoveDuplicates(
    by predicate: (Output, Output) throws -> Bool
  ) -> Result<Output, any Error>.Publisher {
    tryMap { value in
      _ = try predicate(value, value)
      return value
    }
  }

  /// Replaces a failure with the given value.
  ///
  /// ```swift
  /// let p: Result<Int, Never>.Publisher = Result<Int, MyError>.failure(MyError()).publisher
  ///     .replaceError(with: 0)   // publishes 0
  /// ```
  public func replaceError(with output: Output) -> Result<Output, Never>.Publisher {
    switch result {
    case .success(let value): return Result<Output, Never>.Publisher(value)
    case .failure: return Result<Output, Never>.Publisher(output)
    }
  }

  /// Retrying would only deliver the same result again: returns this publisher.
  ///
  /// ```swift
  /// let same = Result<Int, MyError>.failure(MyError()).publisher.retry(3)   // fails with MyError
  /// ```
  public func retry(_ times: Int) -> Result<Output, Failure>.Publisher {
    self
  }

  /// Applies the accumulating closure to the initial result and the success value, at once.
  ///
  /// ```swift
  /// let p: Result<Int, MyError>.Publisher = Result<Int, MyError>.success(5).publisher.scan(10, +)
  /// ```
  public func scan<T>(_ initialResult: T, _ nextPartialResult: (T, Output) -> T) -> Result<T, Failure>.Publisher {
    Result<T, Failure>.Publisher(result.map { nextPartialResult(initialResult, $0) })
  }

  /// Applies the error-throwing accumulating closure to the initial result and the success
  /// value, at once.
  ///
  /// ```swift
  /// let p = Result<Int, MyError>.success(5).publisher.tryScan(10) { try checkedAdd($0, $1) }
  /// ```
  public func tryScan<T>(
    _ initialResult: T, _ nextPartialResult: (T, Output) throws -> T
  ) -> Result<T, any Error>.Publisher {
    tryMap { try nextPartialResult(initialResult, $0) }
  }
}

extension Result.Publisher where Output: Equatable {
  /// A single value has no duplicates: returns this publisher.
  ///
  /// ```swift
  /// let same = Result<Int, MyError>.success(1).publisher.removeDuplicates()
  /// ```
  public func removeDuplicates() -> Result<Output, Failure>.Publisher {
    self
  }
}

extension Result.Publisher where Failure == Never {
  /// Changes the failure type of a result that cannot fail.
  ///
  /// ```swift
  /// let p: Result<Int, MyError>.Publisher = Result<Int, Never>.success(1).publisher
  ///     .setFailureType(to: MyError.self)
  /// ```
  public func setFailureType<E: Error>(to failureType: E.Type) -> Result<Output, E>.Publisher {
    switch result {
    case .success(let value): return Result<Output, E>.Publisher(value)
    }
  }
}

// Combine's specialised operators on `Optional.Publisher`: the value (if any) is known, so each
// operator is applied at once and returns another `Optional.Publisher`.

extension Optional.Publisher {
  /// Transforms the value, if any, with a closure applied at once.
  ///
  /// ```swift
  /// let p: Optional<String>.Publisher = Optional(3).publisher.map { "\($0)" }   // publishes "3"
  /// ```
  public func map<T>(_ transform: (Output) -> T) -> Optional<T>.Publisher {
    Optional<T>.Publisher(output.map(transform))
  }

  /// Calls a closure with the value, if any, at once; publishes the result if it is not `nil`.
  ///
  /// ```swift
  /// let p: Optional<Int>.Publisher = Optional("x").publisher.compactMap { Int($0) }   // empty
  /// ```
  public func compactMap<T>(_ transform: (Output) -> T?) -> Optional<T>.Publisher {
    Optional<T>.Publisher(output.flatMap(transform))
  }

  /// Tests the value, if any, at once; publishes it only if it matches.
  ///
  /// ```swift
  /// let p: Optional<Int>.Publisher = Optional(4).publisher.filter { $0 > 3 }   // publishes 4
  /// ```
  public func filter(_ isIncluded: (Output) -> Bool) -> Optional<Output>.Publisher {
    Optional<Output>.Publisher(output.flatMap { isIncluded($0) ? $0 : nil })
  }

  /// Applies the accumulating closure to the initial result and the value, if any, at once.
  ///
  /// ```swift
  /// let p: Optional<Int>.Publisher = Optional(5).publisher.scan(10, +)   // publishes 15
  /// ```
  public func scan<T>(_ initialResult: T, _ nextPartialResult: (T, Output) -> T) -> Optional<T>.Publisher {
    Optional<T>.Publisher(output.map { nextPartialResult(initialResult, $0) })
  }

  /// At most one value has no duplicates: returns this publisher.
  ///
  /// ```swift
  /// let same = Optional(1).publisher.removeDuplicates { $0 == $1 }
  /// ```
  public func removeDuplicates(by predicate: (Output, Output) -> Bool) -> Optional<Output>.Publisher {
    self
  }

  /// `Optional.Publisher` never fails: returns this publisher.
  ///
  /// ```swift
  /// let same = Optional(1).publisher.replaceError(with: 0)
  /// ```
  public func replaceError(with output: Output) -> Optional<Output>.Publisher {
    self
  }

  /// `Optional.Publisher` never fails, so there is nothing to retry: returns this publisher.
  ///
  /// ```swift
  /// let same: Optional<Int>.Publisher = Optional(1).publisher.retry(3)   // publishes 1
  /// ```
  public func retry(_ times: Int) -> Optional<Output>.Publisher {
    self
  }
}

extension Optional.Publisher where Wrapped: Equatable {
  /// At most one value has no duplicates: returns this publisher.
  ///
  /// ```swift
  /// let same = Optional(1).publisher.removeDuplicates()
  /// ```
  public func removeDuplicates() -> Optional<Wrapped>.Publisher {
    self
  }
}

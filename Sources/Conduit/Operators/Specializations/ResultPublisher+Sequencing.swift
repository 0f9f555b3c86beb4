// Combine's specialised sequence operators on `Result.Publisher`.

extension Result.Publisher {
  /// Returns this publisher: it publishes a value or fails, so it is never empty.
  ///
  /// ```swift
  /// let same: Result<Int, Never>.Publisher = Result<Int, Never>.Publisher(1).replaceEmpty(with: 0)
  /// ```
  public func replaceEmpty(with output: Success) -> Result<Success, Failure>.Publisher {
    self
  }
}

extension Publisher {
  /// Republishes elements up to the specified maximum count, then finishes.
  ///
  /// As in Combine, this is `output(in: 0..<maxLength)`: the publisher cancels upstream once
  /// `maxLength` elements have gone out.
  ///
  /// ```swift
  /// let cancellable = (1...10).publisher
  ///     .prefix(2)
  ///     .sink { print($0) }   // 1, 2
  /// ```
  ///
  /// - Parameter maxLength: The maximum number of elements to republish.
  /// - Precondition: `maxLength` is not negative.
  @inlinable
  public func prefix(_ maxLength: Int) -> Publishers.Output<Self> {
    precondition(maxLength >= 0, "prefix(\(maxLength)): the maximum length cannot be negative; pass 0 or more")
    return output(in: 0..<maxLength)
  }
}

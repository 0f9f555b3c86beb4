// Combine's specialised sequence operators on `Optional.Publisher`: the value (if any) is known,
// so each operator is applied at once and returns another single-value publisher.

extension Optional.Publisher {
  /// Drops the value if `count` is positive, at once; publishes it otherwise.
  ///
  /// ```swift
  /// let none: Optional<Int>.Publisher = Optional(1).publisher.dropFirst()   // finishes empty
  /// ```
  ///
  /// - Precondition: `count` is not negative.
  public func dropFirst(_ count: Int = 1) -> Optional<Wrapped>.Publisher {
    precondition(count >= 0, "dropFirst(\(count)): the number of elements to drop cannot be negative; pass 0 or more")
    return Optional<Wrapped>.Publisher(count > 0 ? nil : output)
  }

  /// Tests the value with a closure, at once; publishes it unless the closure says to drop it.
  ///
  /// ```swift
  /// let kept: Optional<Int>.Publisher = Optional(5).publisher.drop(while: { $0 < 3 })   // publishes 5
  /// ```
  public func drop(while predicate: (Wrapped) -> Bool) -> Optional<Wrapped>.Publisher {
    Optional<Wrapped>.Publisher(output.flatMap { predicate($0) ? nil : $0 })
  }

  /// Publishes the value if `maxLength` is positive, at once; finishes empty otherwise.
  ///
  /// ```swift
  /// let one: Optional<Int>.Publisher = Optional(1).publisher.prefix(3)   // publishes 1
  /// ```
  ///
  /// - Precondition: `maxLength` is not negative.
  public func prefix(_ maxLength: Int) -> Optional<Wrapped>.Publisher {
    precondition(maxLength >= 0, "prefix(\(maxLength)): the maximum length cannot be negative; pass 0 or more")
    return Optional<Wrapped>.Publisher(maxLength > 0 ? output : nil)
  }

  /// Tests the value with a closure, at once; publishes it only if the closure says to go on.
  ///
  /// ```swift
  /// let none: Optional<Int>.Publisher = Optional(5).publisher.prefix(while: { $0 < 3 })   // empty
  /// ```
  public func prefix(while predicate: (Wrapped) -> Bool) -> Optional<Wrapped>.Publisher {
    Optional<Wrapped>.Publisher(output.flatMap { predicate($0) ? $0 : nil })
  }

  /// Publishes the value, or `output` if there is none; returns a `Just`.
  ///
  /// ```swift
  /// let zero: Just<Int> = Optional<Int>.none.publisher.replaceEmpty(with: 0)   // publishes 0
  /// ```
  public func replaceEmpty(with output: Wrapped) -> Just<Wrapped> {
    Just(self.output ?? output)
  }
}

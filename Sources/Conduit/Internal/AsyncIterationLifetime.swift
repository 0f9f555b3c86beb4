/// What a `values` iterator holds: the subscriber behind it, cancelled when the last copy of
/// the iterator goes away (a loop left with `break` or a thrown error), so that the
/// subscription ends with the loop.
@usableFromInline
final class AsyncIterationLifetime<Output, Failure: Error>: Sendable {
  @usableFromInline
  let inner: AsyncIterationInner<Output, Failure>

  @inlinable
  init(_ inner: AsyncIterationInner<Output, Failure>) {
    self.inner = inner
  }

  deinit {
    inner.cancel()
  }
}

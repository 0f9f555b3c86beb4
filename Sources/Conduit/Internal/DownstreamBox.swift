/// A subscriber in an object that never changes, for subscriptions that hand it to the thread
/// that delivers: one retain and one release per value however many references the subscriber
/// holds, or none where the subscription references the box unmanaged. `share(replay:)`'s
/// conduits and the combining operators (`merge`, `zip`, `combineLatest`) keep theirs in one.
@usableFromInline
package final class DownstreamBox<Downstream> {
  @usableFromInline
  package let downstream: Downstream

  @inlinable
  package init(_ downstream: Downstream) {
    self.downstream = downstream
  }
}

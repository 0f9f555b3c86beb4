import Synchronization

/// The types of one upstream's subscriber of a combining subscription: the subscription's link
/// and the values of that upstream.
@usableFromInline
protocol CombiningSideLink {
  /// The link of the subscription the side belongs to.
  associatedtype Parent: CombiningLink
  /// The kind of values the upstream sends.
  associatedtype Input
}

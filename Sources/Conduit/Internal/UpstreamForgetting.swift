import Synchronization

/// A subject that can let go of an upstream subscription cancelled through
/// `Publisher.subscribe(_:)`'s token.
@usableFromInline
protocol UpstreamForgetting: AnyObject {
  func forgetUpstream(_ identifier: CombineIdentifier)
}

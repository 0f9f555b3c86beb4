import Synchronization

/// The per-operator part of a ``FallibleInner``: what one upstream value becomes, and any state
/// carried from one value to the next. Only the inner's serialized calls touch it.
@usableFromInline
protocol FallibleStep {
  /// The kind of values received from upstream.
  associatedtype Input
  /// The kind of values sent downstream.
  associatedtype Emitted
  /// The kind of errors received from upstream.
  associatedtype UpstreamFailure: Error
  /// The kind of errors sent downstream; `step` throws them to fail the stream.
  associatedtype Failure: Error

  /// The operator's name, the inner's `description`.
  static var name: String { get }

  /// Which of Combine's subscriptions the inner behaves as.
  static var kind: CombineSubscriptionKind { get }

  /// The children of the inner's `customMirror`, as Combine's subscription of the operator has
  /// them; `step` is `nil` once the stream has ended.
  static func mirrorChildren(of step: Self?, _ inner: FallibleReflection) -> [Mirror.Child]

  /// Handles one upstream value; a thrown error cancels upstream and fails the stream.
  mutating func step(_ input: Input) throws(Failure) -> FallibleStepResult<Emitted>

  /// The failure sent downstream for a failure from upstream.
  static func failure(_ failure: UpstreamFailure) -> Failure
}

extension FallibleStep where Failure == any Error {
  @inlinable
  static func failure(_ failure: UpstreamFailure) -> any Error { failure }
}

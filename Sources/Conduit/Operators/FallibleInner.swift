/// What a ``FallibleStep`` makes of one upstream value.
@usableFromInline
enum FallibleStepResult<Output> {
  /// Send this value downstream.
  case emit(Output)
  /// Send nothing and ask upstream for one more in place of the value.
  case drop
  /// Cancel upstream and finish the stream.
  case finish
}

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

  /// Handles one upstream value; a thrown error cancels upstream and fails the stream.
  mutating func step(_ input: Input) throws(Failure) -> FallibleStepResult<Emitted>

  /// The failure sent downstream for a failure from upstream.
  static func failure(_ failure: UpstreamFailure) -> Failure
}

extension FallibleStep where Failure == any Error {
  @inlinable
  static func failure(_ failure: UpstreamFailure) -> any Error { failure }
}

/// The `OperatorLink` of a ``FallibleInner``: also names the step it runs.
@usableFromInline
protocol FallibleLink: OperatorLink where Input == Step.Input, Failure == Step.UpstreamFailure {
  /// The per-operator part of the subscriber.
  associatedtype Step: FallibleStep
}

/// The `FallibleLink` of a subscriber that runs `Step` and sends on to `Downstream`. Never
/// instantiated.
@usableFromInline
enum FallibleTypes<Step: FallibleStep, Downstream: Subscriber>: FallibleLink {
  @usableFromInline
  typealias Input = Step.Input
  @usableFromInline
  typealias Failure = Step.UpstreamFailure
}

/// The subscriber of a one-to-one operator whose step may end the stream (`tryMap`,
/// `prefix(while:)`, `decode`…). It forwards the upstream subscription to downstream (requests
/// and cancels go straight up) and keeps it only to cancel it when the step throws (the stream
/// fails with the error) or finishes; once the stream has ended it releases the step and
/// ignores anything more from upstream. No lock: upstream's calls never overlap (contract 3).
///
/// Generic over one `OperatorLink`, so that a pipeline repeating the operator stays specialized
/// (see `OperatorLink`). The link carries the step with the downstream: a step nested in its
/// publisher contains the upstream, but the link contains the next use's link, so it shrinks
/// from one use to the next.
@usableFromInline
final class FallibleInner<Types: FallibleLink>: Subscriber, CustomStringConvertible, CensusScoped
where Types.Downstream.Input == Types.Step.Emitted, Types.Downstream.Failure == Types.Step.Failure {
  @usableFromInline
  typealias Step = Types.Step
  @usableFromInline
  typealias Input = Types.Input
  @usableFromInline
  typealias Failure = Types.Failure
  @usableFromInline
  typealias Downstream = Types.Downstream

  // The three below are touched only from upstream's serialized calls, so the runtime check is
  // skipped. All are `nil` once the stream has ended.
  @usableFromInline @exclusivity(unchecked)
  var downstream: Downstream?
  @usableFromInline @exclusivity(unchecked)
  var step: Step?
  @usableFromInline @exclusivity(unchecked)
  var upstream: (any Subscription)?
  @usableFromInline
  let census: CensusToken

  @usableFromInline
  var description: String { Step.name }
  @usableFromInline
  var censusScope: CensusScope? { census.scope }

  @inlinable
  init(downstream: Downstream, step: Step) {
    census = CensusToken(FallibleInner.self, inheritingFrom: downstream)
    self.downstream = downstream
    self.step = step
  }

  @inlinable
  func receive(subscription: any Subscription) {
    guard let downstream, upstream == nil else {
      subscription.cancel()
      return
    }
    upstream = subscription
    downstream.receive(subscription: subscription)
  }

  @inlinable
  func receive(_ input: Input) -> Subscribers.Demand {
    guard let downstream else { return .none }
    let result: FallibleStepResult<Step.Emitted>?
    do throws(Step.Failure) {
      result = try step?.step(input)
    } catch {
      end(.failure(error))
      return .none
    }
    switch result {
    case .emit(let output): return downstream.receive(output)
    case .drop: return .max(1)
    case .finish: end(.finished)
    case nil: break
    }
    return .none
  }

  @inlinable
  func receive(completion: Subscribers.Completion<Failure>) {
    guard let downstream else { return }
    release()
    downstream.receive(completion: completion.mapFailure { Step.failure($0) })
  }

  /// Cancels upstream and completes downstream.
  @inlinable
  func end(_ completion: Subscribers.Completion<Step.Failure>) {
    let downstream = self.downstream
    let upstream = self.upstream
    release()
    upstream?.cancel()
    downstream?.receive(completion: completion)
  }

  @inlinable
  func release() {
    downstream = nil
    step = nil
    upstream = nil
  }
}

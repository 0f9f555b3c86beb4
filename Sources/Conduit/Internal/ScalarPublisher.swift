/// A publisher that sends at most one value, synchronously, and whose subscription has no
/// effect beyond delivering its `scalarOutcome`.
///
/// `flatMap` and `switchToLatest` take such an inner publisher's outcome directly instead of
/// subscribing to it: no subscription, no child subscriber, no census entry, fewer locks. They do
/// what the subscription's events would make them do, in the same order, so nothing a subscriber
/// or the upstream can see changes. A conforming publisher's `receive(subscriber:)` must send
/// exactly what `scalarOutcome` describes and call no user code.
@usableFromInline
protocol ScalarPublisher: Publisher {
  /// What a subscriber of this publisher receives.
  var scalarOutcome: ScalarOutcome<Output, Failure> { get }
}
extension Just: ScalarPublisher {
  @inlinable
  var scalarOutcome: ScalarOutcome<Output, Never> { .value(output) }
}

extension Optional.Publisher: ScalarPublisher {
  @inlinable
  var scalarOutcome: ScalarOutcome<Wrapped, Never> {
    if let output { .value(output) } else { .finished }
  }
}

extension Result.Publisher: ScalarPublisher {
  @inlinable
  var scalarOutcome: ScalarOutcome<Success, Failure> {
    switch result {
    case .success(let output): .value(output)
    case .failure(let error): .failure(error)
    }
  }
}

extension Empty: ScalarPublisher {
  @inlinable
  var scalarOutcome: ScalarOutcome<Output, Failure> { completeImmediately ? .finished : .silent }
}

extension Fail: ScalarPublisher {
  @inlinable
  var scalarOutcome: ScalarOutcome<Output, Failure> { .failure(error) }
}

extension Publishers.SetFailureType: ScalarPublisher where Upstream: ScalarPublisher {
  @inlinable
  var scalarOutcome: ScalarOutcome<Output, Failure> {
    switch upstream.scalarOutcome {
    case .value(let output): .value(output)
    case .finished: .finished
    case .silent: .silent
    }
  }
}

import Synchronization

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

import Conduit

/// The error the Combine parity tests fail their streams with where the recorded histories name
/// it: it reads `oops` or `thrown` in a `RecordingSubscriber`'s history (`"failure(oops)"`).
enum ParityFailure: Error, Equatable {
  case oops
  case thrown
}

import Conduit

/// The error the buffer's tests fail with: an upstream failure, or the one `whenFull: .customError`
/// makes when the buffer is full.
enum BufferTestError: Error, Equatable {
  case failed
  case full
}

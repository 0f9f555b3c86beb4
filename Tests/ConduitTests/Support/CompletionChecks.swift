import Conduit
import ConduitTesting

/// The error `subscriber` failed with, if it failed with an `E`: `nil` if it has not completed,
/// finished, or failed with an error of another type.
func failure<E: Error>(of subscriber: TestSubscriber<some Any, any Error>, as _: E.Type) -> E? {
  guard case .failure(let error) = subscriber.completion else { return nil }
  return error as? E
}

/// The error `subscriber` failed with, if it failed.
func failure(of subscriber: TestSubscriber<some Any, any Error>) -> (any Error)? {
  guard case .failure(let error) = subscriber.completion else { return nil }
  return error
}

/// Whether `subscriber` has finished (rather than failed, or not completed yet).
func isFinished(_ subscriber: TestSubscriber<some Any, some Error>) -> Bool {
  if case .finished? = subscriber.completion { return true }
  return false
}

/// Whether `completion` is `.finished`.
func isFinished(_ completion: Subscribers.Completion<some Error>) -> Bool {
  if case .finished = completion { return true }
  return false
}

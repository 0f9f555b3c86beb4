import Conduit

/// Whether the completion is `.finished`, for doubles that record a completion as text.
extension Subscribers.Completion {
  var isFinished: Bool {
    if case .finished = self { return true }
    return false
  }
}

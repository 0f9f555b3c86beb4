import Synchronization

/// Which upstreams of a combining subscription have finished.
@usableFromInline
struct UpstreamProgress {
  @usableFromInline
  var finished: [Bool]
  @usableFromInline
  var finishedCount = 0

  @inlinable
  init(upstreamCount: Int) {
    finished = .upstreams(repeating: false, count: upstreamCount)
  }

  @inlinable
  var allFinished: Bool { finishedCount == finished.count }

  @inlinable
  mutating func markFinished(_ index: Int) {
    guard !finished[index] else { return }
    finished[index] = true
    finishedCount += 1
  }
}

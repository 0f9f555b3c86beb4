import Conduit
import Dispatch

/// Runs `body`, then fails if anything it created is still alive.
///
/// When the body returns, the check waits up to `timeout` for asynchronous teardown, then
/// throws a ``LeakCheckFailure`` listing every survivor: each object passed to
/// ``LeakTracker/track(_:fileID:line:)``, and each framework object (an inner subscription, a
/// subject's per-subscriber state, a sink …) created inside the body, on this thread or later on
/// other threads on behalf of the same pipelines, and each leaked pipeline with the line of the
/// body's code that subscribed it (see ``LeakCheckFailure/pipelines``). Checks that run at the
/// same time see only their own objects. An error thrown by the body is rethrown without a leak
/// check.
///
/// This is an extension to Combine.
///
/// ```swift
/// try withLeakCheck { tracker in
///     let model = tracker.track(Model())
///     model.bind(to: subject)
///     subject.send(1)
/// }
/// ```
public func withLeakCheck<R>(timeout: Duration = .seconds(1), _ body: (LeakTracker) throws -> R) throws -> R {
  let tracker = LeakTracker()
  tracker.scope.activate()
  defer { tracker.scope.deactivate() }
  let result = try CensusScope.$current.withValue(tracker.scope) {
    try body(tracker)
  }
  let deadline = ContinuousClock.now.advanced(by: timeout)
  while tracker.liveCount > 0 && ContinuousClock.now < deadline {
    pauseBriefly()
  }
  let failure = tracker.failure()
  if !failure.survivors.isEmpty { throw failure }
  return result
}

/// Runs `body`, then fails if anything it created is still alive; the asynchronous form of
/// ``withLeakCheck(timeout:_:)-(_,(LeakTracker)->R)``.
///
/// This is an extension to Combine.
///
/// ```swift
/// try await withLeakCheck { tracker in
///     let model = tracker.track(Model())
///     await model.load()
/// }
/// ```
public func withLeakCheck<R>(
  timeout: Duration = .seconds(1),
  isolation: isolated (any Actor)? = #isolation,
  _ body: (LeakTracker) async throws -> R
) async throws -> R {
  let tracker = LeakTracker()
  tracker.scope.activate()
  defer { tracker.scope.deactivate() }
  let result = try await CensusScope.$current.withValue(tracker.scope) {
    try await body(tracker)
  }
  let deadline = ContinuousClock.now.advanced(by: timeout)
  while tracker.liveCount > 0 && ContinuousClock.now < deadline {
    await Task.yield()
    pauseBriefly()
  }
  let failure = tracker.failure()
  if !failure.survivors.isEmpty { throw failure }
  return result
}

/// Runs `body` `iterations` times and fails if the live objects grow with the iterations.
///
/// This catches the server-style leak: a handler that adds a subscription per request and never
/// removes it. It counts the framework objects created by the body and the objects tracked in
/// it after every iteration; a count at the end higher than at the halfway point is growth. A
/// constant number of survivors (a cache that fills once, a long-lived subscription) is not.
///
/// This is an extension to Combine.
///
/// ```swift
/// try withGrowthCheck(iterations: 50) { tracker in
///     server.handleRequest()
/// }
/// ```
public func withGrowthCheck(iterations: Int, _ body: (LeakTracker) throws -> Void) throws {
  precondition(
    iterations >= 2,
    "withGrowthCheck(iterations: \(iterations)): growth needs at least 2 iterations to compare; use 10 or more")
  let tracker = LeakTracker()
  tracker.scope.activate()
  defer { tracker.scope.deactivate() }
  var halfway = 0
  for iteration in 1...iterations {
    try CensusScope.$current.withValue(tracker.scope) {
      try body(tracker)
    }
    if iteration == (iterations + 1) / 2 { halfway = tracker.liveCount }
  }
  let deadline = ContinuousClock.now.advanced(by: .seconds(1))
  while tracker.liveCount > halfway && ContinuousClock.now < deadline {
    pauseBriefly()
  }
  try judgeGrowth(tracker, halfway: halfway, iterations: iterations)
}

/// Runs `body` `iterations` times and fails if the live objects grow with the iterations; the
/// asynchronous form of ``withGrowthCheck(iterations:_:)-(_,(LeakTracker)->Void)``.
///
/// This is an extension to Combine.
///
/// ```swift
/// try await withGrowthCheck(iterations: 50) { tracker in
///     await server.handleRequest()
/// }
/// ```
public func withGrowthCheck(
  iterations: Int,
  isolation: isolated (any Actor)? = #isolation,
  _ body: (LeakTracker) async throws -> Void
) async throws {
  precondition(
    iterations >= 2,
    "withGrowthCheck(iterations: \(iterations)): growth needs at least 2 iterations to compare; use 10 or more")
  let tracker = LeakTracker()
  tracker.scope.activate()
  defer { tracker.scope.deactivate() }
  var halfway = 0
  for iteration in 1...iterations {
    try await CensusScope.$current.withValue(tracker.scope) {
      try await body(tracker)
    }
    if iteration == (iterations + 1) / 2 { halfway = tracker.liveCount }
  }
  let deadline = ContinuousClock.now.advanced(by: .seconds(1))
  while tracker.liveCount > halfway && ContinuousClock.now < deadline {
    await Task.yield()
    pauseBriefly()
  }
  try judgeGrowth(tracker, halfway: halfway, iterations: iterations)
}

private func judgeGrowth(_ tracker: LeakTracker, halfway: Int, iterations: Int) throws {
  let final = tracker.liveCount
  guard final > halfway else { return }
  let measured =
    "\(halfway) alive after iteration \((iterations + 1) / 2), \(final) after iteration \(iterations)"
  throw tracker.failure(growth: measured)
}

/// Gives asynchronous teardown on other threads a moment to run.
private func pauseBriefly() {
  _ = DispatchSemaphore(value: 0).wait(timeout: .now() + .milliseconds(1))
}

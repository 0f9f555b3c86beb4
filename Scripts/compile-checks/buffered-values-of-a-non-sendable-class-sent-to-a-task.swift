// expect: risks causing data races
// `values(bufferingPolicy:)` of non-Sendable elements is not Sendable either.
import Conduit

final class Tally { var count = 0 }

func share(_ subject: PassthroughSubject<Tally, Never>) async {
  let values = subject.values(bufferingPolicy: .unbounded)
  Task.detached { for await tally in values { tally.count += 1 } }
  for await tally in values { tally.count += 1 }
}

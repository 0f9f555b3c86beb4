// expect: risks causing data races
// A future of a non-Sendable class, awaited in a detached task and read afterwards, races.
import Conduit

final class Tally { var count = 0 }

func share() async {
  let future = Future<Tally, Never> { promise in promise(.success(Tally())) }
  Task.detached { _ = await future.value }
  _ = await future.value
}

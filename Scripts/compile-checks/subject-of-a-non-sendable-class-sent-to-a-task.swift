// expect: risks causing data races
// A subject of a non-Sendable class, sent into a detached task and used afterwards, races: the
// task and the caller would both send `Tally` values through it.
import Conduit

final class Tally { var count = 0 }

func share() async {
  let subject = PassthroughSubject<Tally, Never>()
  Task.detached { subject.send(Tally()) }
  subject.send(Tally())
}

// expect: compiles
// The same with `Int` values: the subject is Sendable, so both sides may send.
import Conduit

func share() async {
  let subject = PassthroughSubject<Int, Never>()
  Task.detached { subject.send(1) }
  subject.send(2)
}

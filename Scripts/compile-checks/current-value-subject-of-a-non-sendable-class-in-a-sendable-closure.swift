// expect: non-Sendable type 'CurrentValueSubject<Tally, Never>'
// A `@Sendable` closure may not capture a subject whose values are not Sendable.
import Conduit

final class Tally { var count = 0 }

func count(_ subject: CurrentValueSubject<Tally, Never>) {
  let work: @Sendable () -> Void = { subject.value.count += 1 }
  work()
}

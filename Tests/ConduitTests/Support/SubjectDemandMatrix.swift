import Conduit
import Testing

/// For each initial demand and each list of returned demands, subscribes a scripted
/// subscriber to a new subject, lets `send` send to it, finishes it, and counts the values the
/// subscriber got; checks that it got one subscription and the completion.
func subjectDemandMatrix<S: Subject>(
  _ makeSubject: () -> S,
  send: (S, ScriptedDemandSubscriber<Int, ParityFailure>, Subscribers.Demand?) -> Void
) -> [Int] where S.Output == Int, S.Failure == ParityFailure {
  var counts: [Int] = []
  for initial in initialDemands {
    for returned in returnedDemands {
      let subject = makeSubject()
      let subscriber = ScriptedDemandSubscriber<Int, ParityFailure>(initial: initial, returned: returned)
      subject.subscribe(subscriber)
      send(subject, subscriber, initial)
      subject.send(completion: .finished)
      #expect(subscriber.subscriptions == 1)
      #expect(subscriber.completions == [.finished])
      counts.append(subscriber.values.count)
    }
  }
  return counts
}

private let initialDemands: [Subscribers.Demand?] = [nil, .max(1), .max(2), .max(10), .unlimited]

private let returnedDemands: [[Subscribers.Demand]] = [
  Array(repeating: .none, count: 5),
  Array(repeating: .max(1), count: 10),
  [.max(1), .none, .max(1), .none],
  [.none, .max(1), .max(2)],
  [.unlimited, .max(1)],
]

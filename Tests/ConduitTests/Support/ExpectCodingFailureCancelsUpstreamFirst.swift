import Conduit
import Testing

/// The encode and decode failure tests, in Combine (OpenCombine's EncodeTests.swift `testCodingFailure`): `attach` subscribes `recorder` to `upstream`
/// through the failing coder, which `calls` counts the uses of.
func expectCodingFailureCancelsUpstreamFirst(
  named name: String, calls: () -> Int,
  attach: (HandDrivenUpstream<Int, ParityFailure>, RecordingSubscriber<Int, any Error>) -> Void,
  sourceLocation: SourceLocation = #_sourceLocation
) {
  let upstream = HandDrivenUpstream<Int, ParityFailure>(conduct: .careless)
  let recorder = RecordingSubscriber<Int, any Error>(initialDemand: .unlimited, demandPerValue: .none)
  var eventsAtFailure: [SubscriptionEvent]?
  recorder.onCompletion = { _ in eventsAtFailure = upstream.events }
  attach(upstream, recorder)
  #expect(upstream.subscriberDescription == name, sourceLocation: sourceLocation)
  #expect(upstream.send(1) == .none, sourceLocation: sourceLocation)
  #expect(upstream.send(2) == .none, sourceLocation: sourceLocation)
  #expect(eventsAtFailure == [.requested(.unlimited), .cancelled], sourceLocation: sourceLocation)
  #expect(recorder.history.dropFirst() == ["failure(oops)"], sourceLocation: sourceLocation)
  #expect(calls() == 1, sourceLocation: sourceLocation)
  release(upstream, recorder)
}

import Conduit

/// Breaks the cycles a test's pipeline makes through the hand-driven upstream and the recorder.
func release<Output, Failure, Input, Downstream>(
  _ upstream: HandDrivenUpstream<Output, Failure>, _ recorder: RecordingSubscriber<Input, Downstream>
) {
  upstream.detach()
  recorder.forget()
}

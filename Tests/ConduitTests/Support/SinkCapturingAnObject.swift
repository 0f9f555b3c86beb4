import Conduit

/// A sink whose closures alone hold an object, and whether that object is still alive.
func sinkCapturingAnObject() -> (sink: Subscribers.Sink<Int, Never>, capturedIsAlive: () -> Bool) {
  let captured = Captured()
  let sink = Subscribers.Sink<Int, Never>(
    receiveCompletion: { _ in captured.touch() }, receiveValue: { _ in captured.touch() })
  return (sink, { [weak captured] in captured != nil })
}

import Conduit
import Synchronization
import Testing

/// Pumps `first` and `second` on a thread each while `requesters` other threads each call
/// `requestOne` `perRequester` times; then pumps both a few more times, so that demand that
/// reached an upstream after its last pump on its thread is met too.
func pumpBothWhileRequestingOneAtATime(
  _ first: HandDrivenUpstream<Int, Never>, _ second: HandDrivenUpstream<Int, Never>, requesters: Int, perRequester: Int,
  requestOne: @escaping @Sendable () -> Void
) {
  let done = Atomic<Int>(0)
  runOnThreads(2 + requesters) { thread in
    switch thread {
    case 0, 1:
      let source = thread == 0 ? first : second
      while done.load(ordering: .acquiring) < requesters { source.pump() }
    default:
      for _ in 0..<perRequester { requestOne() }
      done.wrappingAdd(1, ordering: .releasing)
    }
  }
  for _ in 0..<10 {
    first.pump()
    second.pump()
  }
}

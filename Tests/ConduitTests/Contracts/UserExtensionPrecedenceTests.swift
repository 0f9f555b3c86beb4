import ConduitTesting
import Testing

@testable import Conduit

/// What the user's module declares for itself, with the name and signature of one of Conduit's
/// additions to Combine. `fileprivate`, so that the rest of this test module still reaches
/// Conduit's own method.
private struct UsersReplay<Upstream: Publisher> {
  let upstream: Upstream
  let count: Int
}

extension Publisher {
  fileprivate func share(replay count: Int) -> UsersReplay<Self> {
    UsersReplay(upstream: self, count: count)
  }
}

/// Conduit's additions to Combine give way to a same-named extension in the user's module, so
/// that code written for Combine compiles unchanged.
@Suite(.leakChecked)
struct UserExtensionPrecedenceTests {
  @Test func theUsersShareReplayWinsOverConduits() {
    let shared = PassthroughSubject<Int, Never>().share(replay: 4)
    #expect(type(of: shared) == UsersReplay<PassthroughSubject<Int, Never>>.self)
    #expect(shared.count == 4)
  }
}

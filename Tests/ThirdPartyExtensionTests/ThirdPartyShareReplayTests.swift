import Conduit
import ConduitTesting
import Testing
import ThirdPartyShareReplay

/// A module that imports Conduit and a library declaring its own `share(replay:)` calls the
/// library's method: Conduit's extension gives way rather than make the call ambiguous.
@Suite(.leakChecked)
struct ThirdPartyShareReplayTests {
  @Test func theLibrarysOwnCallSiteCallsTheLibrarysMethod() {
    let shared = sharedByTheLibrary(Just(1), replay: 3)
    #expect(shared.count == 3)
  }

  @Test func aCallSiteThatImportsBothCallsTheLibrarysMethod() {
    let shared = PassthroughSubject<Int, Never>().share(replay: 2)
    #expect(type(of: shared) == ThirdPartyReplay<PassthroughSubject<Int, Never>>.self)
    #expect(shared.count == 2)
  }

  @Test func theLibrarysPublisherDeliversThroughConduit() {
    let replayed = Just(1).share(replay: 1)
    let subscriber = TestSubscriber<Int, Never>()
    replayed.subscribe(subscriber)
    #expect(subscriber.values == [1])
    #expect(replayed.count == 1)
  }
}

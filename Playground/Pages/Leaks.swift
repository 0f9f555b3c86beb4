import Conduit
import ConduitTesting

/// A view model that keeps its subscription for as long as it lives.
private final class ProfileModel {
  var name = ""
  var cancellable: AnyCancellable?

  /// The leak: the closure captures `self` strongly, and `self` keeps the token that keeps the
  /// closure. Neither can go first.
  func bindStrongly(to names: PassthroughSubject<String, Never>) {
    cancellable = names.sink { name in self.name = name }
  }

  /// The fix: the closure captures `self` weakly, so the model can go, and its token with it.
  func bindWeakly(to names: PassthroughSubject<String, Never>) {
    cancellable = names.sink { [weak self] name in self?.name = name }
  }
}

extension Page {
  static let leaks = Page(name: "leaks", title: "catching a retain cycle with withLeakCheck") {
    say(
      "ConduitTesting's withLeakCheck runs a block, then fails if anything the block created is",
      "still alive: objects you track, and the framework's own objects (sinks, subscriptions).")
    let names = PassthroughSubject<String, Never>()

    say("The classic leak: a sink that captures its owner strongly while the owner stores the token.")
    weak var leaked: ProfileModel?
    do {
      try withLeakCheck(timeout: .milliseconds(50)) { tracker in
        let model = tracker.track(ProfileModel())
        leaked = model
        model.bindStrongly(to: names)
        names.send("Ada")
        show("model.name is \(model.name)")
      }
      show("passed (unexpected)")
    } catch {
      for line in "\(error)".split(separator: "\n") { show(String(line)) }
    }
    show("framework objects alive in the process: \(Census.liveObjects)")

    say("Only the cycle keeps it alive: cancelling the token breaks it and everything is freed.")
    leaked?.cancellable?.cancel()
    show("model freed: \(leaked == nil); framework objects alive: \(Census.liveObjects)")

    say(
      "The fix: [weak self] in the closure. The model goes when the block ends; its token goes",
      "with it, and the token cancels the subscription.")
    do {
      try withLeakCheck { tracker in
        let model = tracker.track(ProfileModel())
        model.bindWeakly(to: names)
        names.send("Grace")
        show("model.name is \(model.name)")
      }
      show("passed: nothing outlived the check")
    } catch {
      show("failed (unexpected): \(error)")
    }

    say("In tests, mark a suite @Suite(.leakChecked) to run every test this way.")
  }
}

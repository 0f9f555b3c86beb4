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

/// A feed that subscribes its own sink and keeps no token for it.
private final class TickerFeed {
  var prices: [Int] = []

  /// The leak: the sink has no token, so nothing can cancel it; it lives as long as the subject.
  func listenWithoutToken(to ticks: PassthroughSubject<Int, Never>) {
    ticks.subscribe(
      Subscribers.Sink(receiveCompletion: { _ in }, receiveValue: { [weak self] in self?.prices.append($0) }))
  }

  /// The fix: `sink` returns the token, and the feed keeps it; the feed's going cancels it.
  var token: AnyCancellable?
  func listenWithToken(to ticks: PassthroughSubject<Int, Never>) {
    token = ticks.sink { [weak self] in self?.prices.append($0) }
  }
}

/// A screen that subscribes again on every refresh.
private final class InboxScreen {
  var cancellables: Set<AnyCancellable> = []
  var current: AnyCancellable?
  var unread = 0

  /// The leak: each refresh adds a subscription and none is ever removed.
  func refreshPilingUp(from counts: PassthroughSubject<Int, Never>) {
    counts.sink { [weak self] in self?.unread = $0 }.store(in: &cancellables)
  }

  /// The fix: the new token replaces the old one, which cancels as it goes.
  func refreshReplacing(from counts: PassthroughSubject<Int, Never>) {
    current = counts.sink { [weak self] in self?.unread = $0 }
  }
}

/// A clock model bound to a stream of ticks.
private final class ClockModel: ObservableObject {
  @Published var now = 0
  var cancellables: Set<AnyCancellable> = []

  /// The leak: `assign(to:on: self)` holds `self` strongly, and `self` holds its token.
  func bindAssigningOnSelf(to ticks: PassthroughSubject<Int, Never>) {
    ticks.assign(to: \.now, on: self).store(in: &cancellables)
  }

  /// The fix: `assign(to: &$now)` lives in the property and holds no reference to `self`.
  func bindAssigningToProperty(to ticks: PassthroughSubject<Int, Never>) {
    ticks.assign(to: &$now)
  }
}

/// Runs a leak check and shows what it found.
private func check(_ label: String, _ body: (LeakTracker) throws -> Void) {
  do {
    try withLeakCheck(timeout: .milliseconds(50), body)
    show("\(label): passed, nothing outlived the check")
  } catch {
    show("\(label): failed, \("\(error)".split(separator: "\n").first ?? "")")
  }
}

extension Page {
  static let leaks = Page(name: "leaks", title: "the four classic leaks, caught and fixed") {
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

    say("The second leak: a sink subscribed with no token. Nothing can cancel it, so it lives as long as")
    say("its subject. The fix: keep the AnyCancellable that sink(receiveValue:) returns.")
    let ticks = PassthroughSubject<Int, Never>()
    check("no token") { tracker in tracker.track(TickerFeed()).listenWithoutToken(to: ticks) }
    check("a token kept") { tracker in tracker.track(TickerFeed()).listenWithToken(to: ticks) }

    say("The third leak: a new subscription on every refresh, stored in a set that only grows. Each")
    say("refresh leaves one more subscription alive; withGrowthCheck catches the growth.")
    let counts = PassthroughSubject<Int, Never>()
    let screen = InboxScreen()
    do {
      try withGrowthCheck(iterations: 20) { _ in screen.refreshPilingUp(from: counts) }
      show("piling up: passed (unexpected)")
    } catch {
      show("piling up: failed, \("\(error)".split(separator: "\n").first ?? "")")
    }
    screen.cancellables.removeAll()
    do {
      try withGrowthCheck(iterations: 20) { _ in screen.refreshReplacing(from: counts) }
      show("replacing: passed, no growth")
    } catch {
      show("replacing: failed (unexpected): \(error)")
    }
    screen.current = nil

    say("The fourth leak: assign(to:on: self) keeps self, which keeps the token. The fix for an")
    say("@Published property: assign(to: &$property), which lives in the property and holds no self.")
    let clockTicks = PassthroughSubject<Int, Never>()
    check("assign(to:on: self)") { tracker in tracker.track(ClockModel()).bindAssigningOnSelf(to: clockTicks) }
    check("assign(to: &$now)") { tracker in tracker.track(ClockModel()).bindAssigningToProperty(to: clockTicks) }
    // The leaked sinks end with their subjects.
    ticks.send(completion: .finished)
    clockTicks.send(completion: .finished)
    show("framework objects alive in the process once the subjects finished: \(Census.liveObjects)")

    say("In tests, mark a suite @Suite(.leakChecked) to run every test this way.")
  }
}

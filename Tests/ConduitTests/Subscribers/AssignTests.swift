import ConduitTesting
import Dispatch
import Synchronization
import Testing

@testable import Conduit

@Suite(.leakChecked)
struct AssignTests {
  @Test func writesEveryValueToTheProperty() {
    let model = Model()

    let token = [1, 2, 3].publisher.assign(to: \.count, on: model)

    #expect(model.history == [1, 2, 3])
    #expect(model.count == 3)
    token.cancel()
  }

  @Test func writesValuesAsTheyAreSent() {
    let model = Model()
    let subject = PassthroughSubject<Int, Never>()
    let token = subject.assign(to: \.count, on: model)

    subject.send(4)
    #expect(model.count == 4)
    subject.send(5)
    #expect(model.history == [4, 5])
    token.cancel()
  }

  @Test func cancelStopsWriting() {
    let model = Model()
    let subject = PassthroughSubject<Int, Never>()
    let token = subject.assign(to: \.count, on: model)

    subject.send(1)
    token.cancel()
    token.cancel()
    subject.send(2)

    #expect(model.history == [1])
  }

  @Test func discardedCancellableCancelsAtOnce() {
    let model = Model()
    let subject = PassthroughSubject<Int, Never>()

    _ = subject.assign(to: \.count, on: model)
    subject.send(1)

    #expect(model.history.isEmpty)
  }

  @Test func releasesTheObjectOnCompletion() {
    let subject = PassthroughSubject<Int, Never>()
    weak var weakModel: Model?
    let token: AnyCancellable
    do {
      let model = Model()
      weakModel = model
      token = subject.assign(to: \.count, on: model)
    }
    subject.send(1)
    #expect(weakModel?.count == 1)

    subject.send(completion: .finished)

    #expect(weakModel == nil)
    withExtendedLifetime(token) {}
  }

  /// The object is let go of after Assign's lock, at completion and at cancel: an object whose
  /// `deinit` reads `object` (or cancels the Assign) used to deadlock on that lock.
  @Test func objectMayUseTheAssignInItsDeinit() {
    final class Watched {
      var value = 0
      var onDeinit: (() -> Void)?
      deinit { onDeinit?() }
    }
    var seen: [String] = []
    for ending in ["completion", "cancel"] {
      let subject = PassthroughSubject<Int, Never>()
      var watched: Watched? = Watched()
      let assign = Subscribers.Assign(object: watched!, keyPath: \Watched.value)
      watched!.onDeinit = {
        seen.append("\(ending): object \(assign.object == nil ? "nil" : "kept")")
        assign.cancel()
      }
      watched = nil
      subject.subscribe(assign)
      subject.send(1)
      if ending == "completion" { subject.send(completion: .finished) } else { assign.cancel() }
    }
    #expect(seen == ["completion: object nil", "cancel: object nil"])
  }

  @Test func releasesTheObjectOnCancel() {
    let subject = PassthroughSubject<Int, Never>()
    weak var weakModel: Model?
    let token: AnyCancellable
    do {
      let model = Model()
      weakModel = model
      token = subject.assign(to: \.count, on: model)
    }
    #expect(weakModel != nil)

    token.cancel()

    #expect(weakModel == nil)
  }

  @Test func objectIsNilOnceCompleted() {
    let model = Model()
    let assign = Subscribers.Assign(object: model, keyPath: \Model.count)
    #expect(assign.object === model)

    Just(8).subscribe(assign)

    #expect(model.count == 8)
    #expect(assign.object == nil)
  }

  @Test func objectIsNilOnceCancelled() {
    let model = Model()
    let assign = Subscribers.Assign(object: model, keyPath: \Model.count)
    let subscription = SpySubscription()
    assign.receive(subscription: subscription)
    #expect(subscription.requests == [.unlimited])

    assign.cancel()

    #expect(assign.object == nil)
    #expect(subscription.cancelCount == 1)
  }

  @Test func cancelsASecondSubscription() {
    let model = Model()
    let assign = Subscribers.Assign(object: model, keyPath: \Model.count)
    let first = SpySubscription()
    let second = SpySubscription()

    assign.receive(subscription: first)
    assign.receive(subscription: second)

    #expect(first.cancelCount == 0)
    #expect(second.requests.isEmpty)
    #expect(second.cancelCount == 1)
    assign.cancel()
  }

  @Test func reflectsTheObjectKeyPathAndStatus() {
    let model = Model()
    let assign = Subscribers.Assign(object: model, keyPath: \Model.count)
    #expect(assign.playgroundDescription as? String == "Assign Model.")
    let children = Array(assign.customMirror.children)
    #expect(children.map(\.label) == ["object", "keyPath", "status"])
    #expect(children.first?.value as? Model === model)
    #expect(children.dropFirst().first?.value as? ReferenceWritableKeyPath<Model, Int> == \Model.count)
    assign.cancel()
    #expect(Array(assign.customMirror.children).first.flatMap { $0.value as? Model } == nil)
  }

  /// Assign asks its first subscription for `.unlimited`; it cancels a second one, the first
  /// one given again, and any after the completion (without a request); cancelling it after the
  /// completion does not reach the first.
  /// Evidence (OpenCombine): AssignTests.swift `testSubscription`.
  @Test func assignCancelsEverySubscriptionButTheFirst() {
    expectKeepsOnlyTheFirstSubscription(Subscribers.Assign(object: Target(), keyPath: \Target.value))
  }

  /// Assign writes only while it is subscribed: not a value that comes before its subscription,
  /// and not one after its completion, even once subscribed again (that subscription is
  /// cancelled).
  /// Evidence (OpenCombine): AssignTests.swift `testReceiveValue` (`assign.receive(12)` leaves the value at 0;
  /// the subscription's history ends `[.requested(.unlimited), .cancelled]`).
  @Test func assignWritesOnlyWhileSubscribed() {
    let object = Target()
    let assign = Subscribers.Assign(object: object, keyPath: \Target.value)

    #expect(assign.receive(12) == .none)
    #expect(object.value == 0)

    let upstream = HandDrivenUpstream<Int, Never>()
    upstream.subscribe(assign)
    let link = upstream.links[0]
    #expect(upstream.send(42) == .none)
    #expect(object.value == 42)
    upstream.send(completion: .finished)

    #expect(assign.receive(100) == .none)
    #expect(object.value == 42)

    upstream.subscribe(assign)
    let second = upstream.links[1]
    upstream.send(1_000_000)
    #expect(object.value == 42)
    #expect(link.requests == [.unlimited])
    #expect(second.requests == [] && second.isCancelled)
  }

  @Test func assignWritesNothingBeforeItsSubscriptionNorAfterCancel() {
    final class Model { var value = 0 }
    let model = Model()
    let assign = Subscribers.Assign(object: model, keyPath: \Model.value)
    _ = assign.receive(1)
    #expect(model.value == 0)
    let upstream = HandDrivenUpstream<Int, Never>()
    upstream.subscribe(assign)
    upstream.send(2)
    #expect(model.value == 2)
    assign.cancel()
    #expect(assign.object == nil)
    _ = assign.receive(3)
    #expect(model.value == 2)
    #expect(upstream.cancelCount == 1)
  }
}

private final class Model {
  private(set) var history: [Int] = []
  var count = 0 {
    didSet { history.append(count) }
  }
}

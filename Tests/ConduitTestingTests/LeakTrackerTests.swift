import Conduit
import ConduitTesting
import Dispatch
import Synchronization
import Testing

@Suite(.leakChecked)
struct LeakTrackerTests {
  final class Model {}
  final class Service {}

  /// A type whose name contains a module name, which must survive the shortening.
  enum TrackedConduit {
    final class Item {}
  }

  /// Keeps objects alive across a check, so that it can see them.
  final class Shelf: @unchecked Sendable {
    // Guarded by `lock`.
    private var objects: [AnyObject] = []
    private let lock = Locked(())

    func put(_ object: AnyObject) {
      lock.withLock { _ in objects.append(object) }
    }

    func clear() {
      let removed = lock.withLock { _ in
        defer { objects = [] }
        return objects
      }
      _ = removed
    }
  }

  static let fileID = "ConduitTestingTests/LeakTrackerTests.swift"

  @Test func trackReturnsTheSameObject() throws {
    try withLeakCheck { tracker in
      let model = Model()
      #expect(tracker.track(model) === model)
    }
  }

  @Test func trackedObjectThatIsFreedPasses() throws {
    try withLeakCheck { tracker in
      tracker.track(Model())
      let service = tracker.track(Service())
      _ = service
    }
  }

  @Test func survivorsListTrackedObjectsInOrderWithTheirPlaceThenFrameworkObjects() {
    let shelf = Shelf()
    let subject = PassthroughSubject<Int, Never>()
    var lines: [Int] = []
    let failure = #expect(throws: LeakCheckFailure.self) {
      try withLeakCheck(timeout: .milliseconds(20)) { tracker in
        shelf.put(subject.sink { _ in })
        let (service, serviceLine) = (tracker.track(Service()), #line)
        let (model, modelLine) = (tracker.track(Model()), #line)
        tracker.track(Model())  // freed at once: not a survivor
        shelf.put(service)
        shelf.put(model)
        lines = [serviceLine, modelLine]
      }
    }
    let survivors = failure?.survivors ?? []
    #expect(
      survivors.map(\.typeName) == [
        "ConduitTestingTests.LeakTrackerTests.Service", "ConduitTestingTests.LeakTrackerTests.Model",
        "SubjectDownstream<Subscribers.Sink<Int, Never>>", "Subscribers.Sink<Int, Never>",
      ])
    #expect(survivors.map(\.fileID) == [Self.fileID, Self.fileID, nil, nil])
    #expect(survivors.map(\.line) == lines.map { Optional($0) } + [nil, nil])
    shelf.clear()
  }

  @Test func trackedObjectsAreWatchedWeakly() throws {
    let subject = PassthroughSubject<Int, Never>()
    var received: [Int] = []
    try withLeakCheck { tracker in
      // Tracking does not keep the model alive: once the body drops it, it is gone.
      var model: Model? = tracker.track(Model())
      weak let watched = model
      #expect(watched != nil)
      model = nil
      #expect(watched == nil)
      let token = subject.sink { received.append($0) }
      subject.send(1)
      token.cancel()
    }
    #expect(received == [1])
  }

  @Test func tracksFromOtherThreads() {
    let shelf = Shelf()
    let failure = #expect(throws: LeakCheckFailure.self) {
      try withLeakCheck(timeout: .milliseconds(20)) { tracker in
        DispatchQueue.concurrentPerform(iterations: 8) { index in
          let model = tracker.track(Model())
          if index.isMultiple(of: 2) { shelf.put(model) }
        }
      }
    }
    #expect(failure?.survivors.count == 4)
    #expect(failure?.survivors.allSatisfy { $0.typeName == "ConduitTestingTests.LeakTrackerTests.Model" } == true)
    shelf.clear()
  }

  @Test func eachCheckHasItsOwnTracker() throws {
    let shelf = Shelf()
    let outer = #expect(throws: LeakCheckFailure.self) {
      try withLeakCheck(timeout: .milliseconds(20)) { outerTracker in
        shelf.put(outerTracker.track(Service()))
        // The inner check sees neither the outer check's objects nor reports to it.
        try withLeakCheck { innerTracker in
          #expect(innerTracker !== outerTracker)
          innerTracker.track(Model())
        }
      }
    }
    #expect(outer?.survivors.map(\.typeName) == ["ConduitTestingTests.LeakTrackerTests.Service"])
    shelf.clear()
  }

  // MARK: Readable type names

  @Test func frameworkTypesLoseTheirModulePrefixes() {
    #expect(CensusScope.readableName(of: Subscribers.Sink<Int, Never>.self) == "Subscribers.Sink<Int, Never>")
    #expect(
      CensusScope.readableName(of: Subscribers.Assign<Model, [String]>.self)
        == "Subscribers.Assign<ConduitTestingTests.LeakTrackerTests.Model, Array<String>>")
  }

  @Test func localTypesLoseTheirUnknownContext() {
    final class Local {}
    #expect(CensusScope.readableName(of: Local.self) == "ConduitTestingTests.LeakTrackerTests.Local")
  }

  @Test func namesThatMerelyContainAModuleNameAreKept() {
    #expect(
      CensusScope.readableName(of: TrackedConduit.Item.self)
        == "ConduitTestingTests.LeakTrackerTests.TrackedConduit.Item")
    #expect(
      CensusScope.readableName(of: Subscribers.Sink<TrackedConduit.Item, Never>.self)
        == "Subscribers.Sink<ConduitTestingTests.LeakTrackerTests.TrackedConduit.Item, Never>")
  }
}

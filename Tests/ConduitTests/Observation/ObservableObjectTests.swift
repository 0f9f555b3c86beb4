import Conduit
import ConduitTesting
import Testing

@Suite(.leakChecked)
struct ObservableObjectTests {
  class Base: ObservableObject {
    @Published var inherited = 0
    var constant = Published(initialValue: "constant")
    var plain = "plain"
  }

  final class Derived: Base {
    @Published var own = 1
    @Published var other = 2.0
  }

  final class Pair<First, Second>: ObservableObject {
    @Published var first: First
    @Published var second: Second

    init(_ first: First, _ second: Second) {
      self.first = first
      self.second = second
    }
  }

  class Unobserved {
    @Published var early = 10
  }

  final class ObservedSubclass: Unobserved, ObservableObject {
    @Published var late = "late"
  }

  final class NoPublished: ObservableObject {
    var count = 0
  }

  final class Parent: ObservableObject {
    @Published var name = "parent"
    let child = Child()
  }

  final class Child: ObservableObject {
    @Published var age = 3
  }

  final class ForwardingParent: ObservableObject {
    @Published var name = "parent"
    let child = Child()
    private var forwarding: AnyCancellable?

    init() {
      forwarding = child.objectWillChange.sink { [weak self] in self?.objectWillChange.send() }
    }
  }

  @Test func objectWillChangeIsTheSamePublisherOnEveryRead() {
    let object = Derived()
    #expect(object.objectWillChange === object.objectWillChange)
    #expect(Derived().objectWillChange !== object.objectWillChange)
  }

  @Test func everyPublishedPropertyAnnouncesItsChangesIncludingInheritedOnes() {
    let object = Derived()
    var count = 0
    let cancellable = object.objectWillChange.sink { count += 1 }
    object.inherited += 1
    #expect(count == 1)
    object.own += 1
    #expect(count == 2)
    object.other *= 2
    #expect(count == 3)
    Published<String>[_enclosingInstance: object, wrapped: \.plain, storage: \.constant] = "changed"
    #expect(count == 4)
    object.plain = "not published"
    #expect(count == 4)
    #expect((object.inherited, object.own, object.other) == (1, 2, 4.0))
    cancellable.cancel()
  }

  @Test func changesBeforeTheFirstReadAreAnnouncedToNobody() {
    let object = Derived()
    object.own = 5
    var count = 0
    let cancellable = object.objectWillChange.sink { count += 1 }
    #expect(count == 0)
    object.own = 6
    #expect(count == 1)
    cancellable.cancel()
  }

  @Test func aGenericClassAnnouncesItsChanges() {
    let pair = Pair(1, "one")
    var count = 0
    let cancellable = pair.objectWillChange.sink { count += 1 }
    pair.first += 1
    pair.second += "!"
    #expect(count == 2)
    #expect(pair.first == 2 && pair.second == "one!")
    cancellable.cancel()
  }

  @Test func propertiesOfAClassThatIsNotObservableAnnounceInItsObservableSubclass() {
    let object = ObservedSubclass()
    var count = 0
    let cancellable = object.objectWillChange.sink { count += 1 }
    object.early += 1
    object.late = "later"
    #expect(count == 2)
    cancellable.cancel()
  }

  @Test func anObjectWithNoPublishedPropertyKeepsOnePublisher() {
    let object = NoPublished()
    #expect(object.objectWillChange === object.objectWillChange)
    var count = 0
    let cancellable = object.objectWillChange.sink { count += 1 }
    object.objectWillChange.send()
    #expect(count == 1)
    cancellable.cancel()
  }

  @Test func aNestedObjectDoesNotForwardItsChanges() {
    let parent = Parent()
    var count = 0
    let cancellable = parent.objectWillChange.sink { count += 1 }
    parent.child.age += 1
    #expect(count == 0)
    parent.name = "renamed"
    #expect(count == 1)
    cancellable.cancel()
  }

  @Test func forwardingByHandAnnouncesTheNestedChanges() {
    let parent = ForwardingParent()
    var count = 0
    let cancellable = parent.objectWillChange.sink { count += 1 }
    parent.child.age += 1
    parent.name = "renamed"
    #expect(count == 2)
    cancellable.cancel()
  }

  @Test func objectsObservedAndReleasedDoNotAccumulate() throws {
    try withGrowthCheck(iterations: 10_000) { tracker in
      let object = tracker.track(Derived())
      var count = 0
      let announcements = object.objectWillChange.sink { count += 1 }
      let values = object.$own.sink { _ in }
      object.own += 1
      announcements.cancel()
      values.cancel()
      #expect(count == 1)
    }
  }

  @Test func objectsWithNoPublishedPropertyDoNotAccumulate() throws {
    try withGrowthCheck(iterations: 10_000) { tracker in
      let object = tracker.track(NoPublished())
      let cancellable = object.objectWillChange.sink {}
      object.objectWillChange.send()
      cancellable.cancel()
    }
  }
}

import Conduit
import ConduitTesting
import Synchronization
import Testing

@Suite(.leakChecked)
struct PublishedTests {
  final class Thermostat: ObservableObject {
    @Published var temperature = 20
    @Published var label = "hall"
  }

  final class CustomAnnouncer: ObservableObject {
    let objectWillChange = ObservableObjectPublisher()
    @Published var state: Int

    init(_ state: Int = 0) {
      _state = Published(initialValue: state)
    }
  }

  final class Plain {
    @Published var count = 0
  }

  final class ExplicitStorage: ObservableObject {
    var storage = Published(initialValue: "hall")
    var unrelated = "unrelated"
  }

  @Test func projectedValueSendsTheCurrentValueThenEachNewValue() {
    let thermostat = Thermostat()
    thermostat.temperature = 21
    let subscriber = TestSubscriber<Int, Never>()
    thermostat.$temperature.subscribe(subscriber)
    thermostat.temperature = 22
    thermostat.temperature = 23
    #expect(subscriber.values == [21, 22, 23])
    #expect(thermostat.temperature == 23)
    #expect(subscriber.violations.isEmpty)
    subscriber.cancel()
  }

  @Test func aSubscriberReadingThePropertySeesTheOldValue() {
    let thermostat = Thermostat()
    var seen: [String] = []
    let cancellable = thermostat.$temperature.dropFirst().sink { value in
      seen.append("received \(value), property is \(thermostat.temperature)")
    }
    thermostat.temperature = 25
    #expect(seen == ["received 25, property is 20"])
    #expect(thermostat.temperature == 25)
    cancellable.cancel()
  }

  @Test func objectWillChangeComesBeforeTheValueAndBeforeTheStore() {
    let thermostat = Thermostat()
    var log: [String] = []
    let announcements = thermostat.objectWillChange.sink {
      log.append("will change from \(thermostat.temperature)")
    }
    let values = thermostat.$temperature.dropFirst().sink { log.append("value \($0)") }
    thermostat.temperature = 30
    thermostat.label = "kitchen"
    #expect(log == ["will change from 20", "value 30", "will change from 30"])
    announcements.cancel()
    values.cancel()
  }

  @Test func aPublishedPropertyOutsideAnObservableObjectStillPublishes() {
    let plain = Plain()
    let subscriber = TestSubscriber<Int, Never>()
    plain.$count.subscribe(subscriber)
    plain.count += 1
    #expect(subscriber.values == [0, 1])
    subscriber.cancel()
  }

  @Test func aClassWithItsOwnObjectWillChangeSendsItItself() {
    let object = CustomAnnouncer()
    let subscriber = TestSubscriber<Void, Never>()
    object.objectWillChange.subscribe(subscriber)
    object.state = 100
    #expect(subscriber.values.isEmpty)
    object.objectWillChange.send()
    #expect(subscriber.values.count == 1)
    #expect(object.state == 100)
    subscriber.cancel()
  }

  @Test func demandWorksAsForACurrentValueSubject() throws {
    let object = CustomAnnouncer()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    object.$state.subscribe(subscriber)
    #expect(subscriber.values.isEmpty)
    subscriber.request(.max(2))
    #expect(subscriber.values == [0])
    object.state = 1
    object.state = 2
    object.state = 3
    #expect(subscriber.values == [0, 1])
    // The value missed for want of demand comes, as the current value, with the next demand.
    subscriber.request(.max(5))
    #expect(subscriber.values == [0, 1, 3])
    subscriber.cancel()
    object.state = 4
    #expect(subscriber.values == [0, 1, 3])
    #expect(subscriber.violations.isEmpty)
  }

  @Test func theSubscriptionIsDescribedAsCombineDescribesIt() throws {
    let object = CustomAnnouncer()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    object.$state.subscribe(subscriber)
    let subscription = try #require(subscriber.subscription)
    #expect(String(describing: subscription) == "PublishedSubject")
    let labels = Mirror(reflecting: subscription).children.map(\.label)
    #expect(labels == ["parent", "downstream", "demand", "subject"])
    subscriber.cancel()
  }

  @Test func assigningToTheProjectedValueChangesNothing() {
    let first = CustomAnnouncer(1)
    let second = CustomAnnouncer(2)
    first.$state = second.$state
    #expect(first.state == 1)
    #expect(second.state == 2)
    first.state = 3
    #expect(second.state == 2)
  }

  @Test func theEnclosingInstanceSubscriptSetsTheStorageAndAnnounces() {
    let object = ExplicitStorage()
    var announcements = 0
    let cancellable = object.objectWillChange.sink { announcements += 1 }
    Published<String>[_enclosingInstance: object, wrapped: \.unrelated, storage: \.storage] = "attic"
    #expect(announcements == 1)
    // As in Combine, the subscript sets the storage, not the property its key path names.
    #expect(object.unrelated == "unrelated")
    #expect(Published<String>[_enclosingInstance: object, wrapped: \.unrelated, storage: \.storage] == "attic")
    cancellable.cancel()
  }

  @Test func setsFromInsideASubscriberAreDeliveredAfterTheValueInHand() {
    let thermostat = Thermostat()
    var received: [Int] = []
    let cancellable = thermostat.$temperature.sink { value in
      received.append(value)
      if value == 1 { thermostat.temperature = 2 }
    }
    thermostat.temperature = 1
    #expect(received == [20, 1, 2])
    #expect(thermostat.temperature == 2)
    cancellable.cancel()
  }

  @Test func theObjectGoesAwayWhileItsPropertyHasSubscribers() throws {
    let subscriber = TestSubscriber<Int, Never>()
    weak var freed: Thermostat?
    do {
      let thermostat = Thermostat()
      freed = thermostat
      thermostat.$temperature.subscribe(subscriber)
      thermostat.temperature = 5
    }
    #expect(freed == nil)
    // As in Combine, the property never completes, even when it goes away; its subscription
    // keeps the property's subject until the subscriber cancels.
    #expect(subscriber.events == [.subscription, .value(20), .value(5)])
    subscriber.cancel()
  }
}

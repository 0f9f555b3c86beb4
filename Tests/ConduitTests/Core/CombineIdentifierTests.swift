import Conduit
import ConduitTesting
import Dispatch
import Synchronization
import Testing

private final class Identified {}

private final class ClassSubscriber: Subscriber {
  func receive(subscription: any Subscription) {}
  func receive(_ input: Int) -> Subscribers.Demand { .none }
  func receive(completion: Subscribers.Completion<Never>) {}
}

@Suite(.leakChecked)
struct CombineIdentifierTests {
  @Test func freshIdentifiersAreUnique() {
    let identifiers = (0..<10_000).map { _ in CombineIdentifier() }
    #expect(Set(identifiers).count == identifiers.count)
    #expect(CombineIdentifier() != CombineIdentifier())
  }

  @Test func freshIdentifiersAreUniqueAcrossThreads() {
    let collected = Locked<[CombineIdentifier]>([])
    DispatchQueue.concurrentPerform(iterations: 8) { _ in
      let local = (0..<1000).map { _ in CombineIdentifier() }
      collected.withLock { $0.append(contentsOf: local) }
    }
    let all = collected.withLock { $0 }
    #expect(all.count == 8000)
    #expect(Set(all).count == 8000)
  }

  @Test func sameObjectGivesEqualIdentifiers() {
    let object = Identified()
    #expect(CombineIdentifier(object) == CombineIdentifier(object))
    #expect(CombineIdentifier(object).hashValue == CombineIdentifier(object).hashValue)
    #expect(CombineIdentifier(object).description == CombineIdentifier(object).description)
  }

  @Test func differentObjectsGiveDifferentIdentifiers() {
    let first = Identified()
    let second = Identified()
    #expect(CombineIdentifier(first) != CombineIdentifier(second))
  }

  @Test func objectIdentifiersNeverCollideWithFreshOnes() {
    let objects = (0..<1000).map { _ in Identified() }
    let fromObjects = Set(objects.map { CombineIdentifier($0) })
    let fresh = Set((0..<1000).map { _ in CombineIdentifier() })
    #expect(fromObjects.count == 1000)
    #expect(fromObjects.isDisjoint(with: fresh))
  }

  @Test func classSubscriberDefaultsToItsObjectIdentifier() {
    let subscriber = ClassSubscriber()
    #expect(subscriber.combineIdentifier == CombineIdentifier(subscriber))
    #expect(subscriber.combineIdentifier == subscriber.combineIdentifier)
    #expect(subscriber.combineIdentifier != ClassSubscriber().combineIdentifier)
  }

  @Test func descriptionIsHexadecimal() {
    let description = CombineIdentifier().description
    #expect(description.hasPrefix("0x"))
    #expect(UInt64(description.dropFirst(2), radix: 16) != nil)
    #expect(CombineIdentifier(Identified()).description.hasPrefix("0x"))
  }
}

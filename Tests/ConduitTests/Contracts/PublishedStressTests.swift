import Conduit
import ConduitTesting
import Synchronization
import Testing

/// `@Published` set from several threads at once, which Combine does not support and Conduit
/// does: the stored value never tears, every subscriber receives the values in one order, the
/// property ends with the value delivered last, and `objectWillChange` comes before each change.
/// CI runs this suite under ThreadSanitizer (`swift test --sanitize=thread --filter Stress`).
@Suite(.leakChecked(timeout: .seconds(3)), .serialized)
struct PublishedStressTests {
  private static let rounds = 40
  private static let setters = 3
  private static let setsPerSetter = 200

  /// Two fields that are always set together, so that a torn read shows as a mismatch.
  struct Reading: Equatable, Sendable {
    var sender: Int
    var index: Int
    var check: Int

    init(sender: Int, index: Int) {
      self.sender = sender
      self.index = index
      check = sender * 1_000_000 + index
    }

    var isWhole: Bool { check == sender * 1_000_000 + index }
  }

  final class Station: ObservableObject, @unchecked Sendable {
    @Published var reading = Reading(sender: -1, index: 0)
    @Published var other = 0
  }

  @Test func settersOnSeveralThreadsAreDeliveredInOneOrderAndTheLastIsKept() {
    for _ in 0..<Self.rounds {
      let station = Station()
      let announced = Atomic<Int>(0)
      let announcedTooLate = Atomic<Int>(0)
      let first = Locked<[Reading]>([])
      let second = Locked<[Reading]>([])
      let announcements = station.objectWillChange.sink { announced.wrappingAdd(1, ordering: .relaxed) }
      let firstValues = station.$reading.dropFirst().sink { reading in
        let count = first.withLock { log in
          log.append(reading)
          return log.count
        }
        // Every change delivered so far was announced before it.
        if announced.load(ordering: .relaxed) < count { announcedTooLate.wrappingAdd(1, ordering: .relaxed) }
      }
      let secondValues = station.$reading.dropFirst().sink { reading in second.withLock { $0.append(reading) } }
      let tornReads = Atomic<Int>(0)
      let done = Atomic<Int>(0)

      runOnThreads(Self.setters + 1) { thread in
        guard thread < Self.setters else {
          // A reader, racing the setters.
          while done.load(ordering: .acquiring) < Self.setters {
            if !station.reading.isWhole { tornReads.wrappingAdd(1, ordering: .relaxed) }
          }
          return
        }
        for index in 0..<Self.setsPerSetter {
          station.reading = Reading(sender: thread, index: index)
        }
        done.wrappingAdd(1, ordering: .releasing)
      }

      let firstLog = first.withLock { $0 }
      let secondLog = second.withLock { $0 }
      #expect(firstLog.count == Self.setters * Self.setsPerSetter)
      #expect(firstLog == secondLog)
      #expect(firstLog.last == station.reading)
      #expect(announced.load(ordering: .relaxed) == Self.setters * Self.setsPerSetter)
      #expect(announcedTooLate.load(ordering: .relaxed) == 0)
      #expect(tornReads.load(ordering: .relaxed) == 0)
      for sender in 0..<Self.setters {
        let indices = firstLog.filter { $0.sender == sender }.map(\.index)
        #expect(indices == Array(0..<Self.setsPerSetter))
      }
      announcements.cancel()
      firstValues.cancel()
      secondValues.cancel()
    }
  }

  @Test func settingDifferentPropertiesOnSeveralThreadsAnnouncesEveryChange() {
    for _ in 0..<Self.rounds {
      let station = Station()
      let announced = Atomic<Int>(0)
      let announcements = station.objectWillChange.sink { announced.wrappingAdd(1, ordering: .relaxed) }
      let others = Locked<[Int]>([])
      let otherValues = station.$other.dropFirst().sink { value in others.withLock { $0.append(value) } }

      runOnThreads(2) { thread in
        for index in 0..<Self.setsPerSetter {
          if thread == 0 {
            station.reading = Reading(sender: 0, index: index)
          } else {
            station.other = index
          }
        }
      }

      #expect(announced.load(ordering: .relaxed) == 2 * Self.setsPerSetter)
      #expect(others.withLock { $0 } == Array(0..<Self.setsPerSetter))
      #expect(station.other == Self.setsPerSetter - 1)
      #expect(station.reading == Reading(sender: 0, index: Self.setsPerSetter - 1))
      announcements.cancel()
      otherValues.cancel()
    }
  }

  @Test func concurrentFirstReadsOfObjectWillChangeAgreeOnOnePublisher() {
    for _ in 0..<Self.rounds * 5 {
      let station = Station()
      let seen = Locked<[ObjectIdentifier]>([])
      runOnThreads(3) { _ in
        let publisher = station.objectWillChange
        seen.withLock { $0.append(ObjectIdentifier(publisher)) }
      }
      let identities = Set(seen.withLock { $0 })
      #expect(identities.count == 1)
      #expect(identities.first == ObjectIdentifier(station.objectWillChange))
    }
  }
}

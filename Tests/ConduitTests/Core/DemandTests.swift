import Conduit
import ConduitTesting
import Foundation
import Testing

@Suite(.leakChecked)
struct DemandTests {
  typealias Demand = Subscribers.Demand

  // MARK: Construction and properties

  @Test func noneIsMaxZero() {
    #expect(Demand.none == .max(0))
    #expect(Demand.none.max == 0)
  }

  @Test func maxPropertyGivesTheCountOrNilForUnlimited() {
    #expect(Demand.max(5).max == 5)
    #expect(Demand.max(Int.max).max == Int.max)
    #expect(Demand.unlimited.max == nil)
  }

  @Test func largestFiniteDemandIsNotUnlimited() {
    #expect(Demand.max(Int.max) != .unlimited)
    #expect(Demand.max(Int.max) < .unlimited)
  }

  @Test func descriptionMatchesCombine() {
    #expect(Demand.unlimited.description == "unlimited")
    #expect(Demand.max(3).description == "max(3)")
    #expect(Demand.none.description == "max(0)")
    #expect(String(describing: Demand.max(42)) == "max(42)")
  }

  // MARK: Addition

  @Test func addingDemands() {
    #expect(Demand.max(2) + .max(3) == .max(5))
    #expect(Demand.none + .none == .none)
    #expect(Demand.max(Int.max - 1) + .max(1) == .max(Int.max))
  }

  @Test func addingDemandsOverflowSaturatesToUnlimited() {
    #expect(Demand.max(Int.max) + .max(1) == .unlimited)
    #expect(Demand.max(Int.max) + .max(Int.max) == .unlimited)
  }

  @Test func unlimitedAbsorbsAddition() {
    #expect(Demand.unlimited + .max(1) == .unlimited)
    #expect(Demand.max(1) + .unlimited == .unlimited)
    #expect(Demand.unlimited + .unlimited == .unlimited)
    #expect(Demand.unlimited + .none == .unlimited)
  }

  @Test func addingAnInteger() {
    #expect(Demand.max(2) + 3 == .max(5))
    #expect(Demand.none + 0 == .none)
    #expect(Demand.max(Int.max) + 1 == .unlimited)
    #expect(Demand.unlimited + 7 == .unlimited)
  }

  @Test func addAssigningDemandsAndIntegers() {
    var demand = Demand.max(1)
    demand += .max(2)
    #expect(demand == .max(3))
    demand += 4
    #expect(demand == .max(7))
    demand += Int.max
    #expect(demand == .unlimited)
    demand += .max(1)
    #expect(demand == .unlimited)
  }

  // MARK: Subtraction

  @Test func subtractingDemands() {
    #expect(Demand.max(5) - .max(2) == .max(3))
    #expect(Demand.max(5) - .max(5) == .none)
  }

  @Test func subtractingDemandsClampsAtNone() {
    #expect(Demand.max(2) - .max(5) == .none)
    #expect(Demand.none - .max(1) == .none)
  }

  @Test func subtractingUnlimitedFromFiniteGivesNone() {
    #expect(Demand.max(5) - .unlimited == .none)
    #expect(Demand.max(Int.max) - .unlimited == .none)
    #expect(Demand.none - .unlimited == .none)
  }

  @Test func unlimitedMinusAnythingStaysUnlimited() {
    #expect(Demand.unlimited - .max(5) == .unlimited)
    #expect(Demand.unlimited - .unlimited == .unlimited)
    #expect(Demand.unlimited - 1 == .unlimited)
    #expect(Demand.unlimited - Int.max == .unlimited)
  }

  @Test func subtractingAnInteger() {
    #expect(Demand.max(5) - 2 == .max(3))
    #expect(Demand.max(5) - 5 == .none)
    #expect(Demand.max(2) - 5 == .none)
    #expect(Demand.max(1) - Int.max == .none)
  }

  @Test func subtractingANegativeIntegerAddsAndAnOverflowGivesNoneAsInCombine() {
    // Combine computes the difference as an Int: an overflow is .none, not .unlimited
    // (OpenCombine's SubscribersDemandTests.testSubtraction).
    #expect(Demand.max(5) - (-3) == .max(8))
    #expect(Demand.max(Int.max) - (-1) == .none)
    #expect(Demand.max(Int.max - 1) - (-1) == .max(Int.max))
    #expect(Demand.max(3) - Int.min == .none)
    var demand = Demand.max(Int.max)
    demand -= -1
    #expect(demand == .none)
  }

  @Test func subtractAssigningDemandsAndIntegers() {
    var demand = Demand.max(10)
    demand -= .max(3)
    #expect(demand == .max(7))
    demand -= 2
    #expect(demand == .max(5))
    demand -= 9
    #expect(demand == .none)
    demand -= .unlimited
    #expect(demand == .none)

    var unlimited = Demand.unlimited
    unlimited -= 1
    unlimited -= .max(1000)
    #expect(unlimited == .unlimited)
  }

  // MARK: Multiplication

  @Test func multiplyingByAnInteger() {
    #expect(Demand.max(3) * 2 == .max(6))
    #expect(Demand.max(3) * 0 == .none)
    #expect(Demand.none * 100 == .none)
    #expect(Demand.max(1) * Int.max == .max(Int.max))
  }

  @Test func multiplyingOverflowSaturatesToUnlimited() {
    #expect(Demand.max(Int.max / 2 + 1) * 2 == .unlimited)
    #expect(Demand.max(Int.max) * Int.max == .unlimited)
  }

  @Test func unlimitedAbsorbsMultiplication() {
    #expect(Demand.unlimited * 2 == .unlimited)
    #expect(Demand.unlimited * 1 == .unlimited)
  }

  @Test func multiplyAssigning() {
    var demand = Demand.max(2)
    demand *= 5
    #expect(demand == .max(10))
    demand *= Int.max
    #expect(demand == .unlimited)
  }

  // MARK: Comparisons between demands

  @Test func demandsAreOrdered() {
    #expect(Demand.none < .max(1))
    #expect(Demand.max(1) < .max(2))
    #expect(Demand.max(Int.max) < .unlimited)
    #expect(!(Demand.unlimited < .unlimited))
    #expect(Demand.max(2) <= .max(2))
    #expect(Demand.max(3) > .max(2))
    #expect(Demand.unlimited >= .max(Int.max))
    #expect(Demand.unlimited >= .unlimited)
    #expect([Demand.max(4), .unlimited, .none, .max(1)].sorted() == [.none, .max(1), .max(4), .unlimited])
    #expect([Demand.max(4), .unlimited, .max(1)].min() == .max(1))
  }

  @Test func demandsAreEquatableAndHashable() {
    #expect(Demand.max(3) == .max(3))
    #expect(Demand.max(3) != .max(4))
    #expect(Demand.unlimited == .unlimited)
    #expect(Demand.unlimited != .max(0))
    let set: Set<Demand> = [.max(1), .max(1), .unlimited, .unlimited, .none]
    #expect(set.count == 3)
    #expect(Demand.max(Int.max) + .max(1) == Demand.unlimited)
    #expect((Demand.max(Int.max) + .max(1)).hashValue == Demand.unlimited.hashValue)
  }

  // MARK: Comparisons with integers

  @Test func demandComparedWithInteger() {
    #expect(Demand.max(3) < 4)
    #expect(!(Demand.max(3) < 3))
    #expect(Demand.max(3) <= 3)
    #expect(!(Demand.max(3) <= 2))
    #expect(Demand.max(3) > 2)
    #expect(!(Demand.max(3) > 3))
    #expect(Demand.max(3) >= 3)
    #expect(!(Demand.max(3) >= 4))
    #expect(Demand.max(3) == 3)
    #expect(!(Demand.max(3) == 4))
    #expect(Demand.max(3) != 4)
    #expect(!(Demand.max(3) != 3))
    #expect(Demand.none == 0)
  }

  @Test func integerComparedWithDemand() {
    #expect(2 < Demand.max(3))
    #expect(!(3 < Demand.max(3)))
    #expect(3 <= Demand.max(3))
    #expect(!(4 <= Demand.max(3)))
    #expect(4 > Demand.max(3))
    #expect(!(3 > Demand.max(3)))
    #expect(3 >= Demand.max(3))
    #expect(!(2 >= Demand.max(3)))
    #expect(3 == Demand.max(3))
    #expect(!(4 == Demand.max(3)))
    #expect(4 != Demand.max(3))
    #expect(!(3 != Demand.max(3)))
  }

  @Test func unlimitedIsGreaterThanEveryInteger() {
    #expect(Demand.unlimited > Int.max)
    #expect(Demand.unlimited >= Int.max)
    #expect(!(Demand.unlimited < Int.max))
    #expect(!(Demand.unlimited <= Int.max))
    #expect(Int.max < Demand.unlimited)
    #expect(Int.max <= Demand.unlimited)
    #expect(!(Int.max > Demand.unlimited))
    #expect(!(Int.max >= Demand.unlimited))
    #expect(Demand.unlimited > 0)
    #expect(Demand.unlimited != Int.max)
    #expect(Int.max != Demand.unlimited)
    #expect(!(Demand.unlimited == Int.max))
    #expect(!(Int.max == Demand.unlimited))
  }

  // MARK: Codable

  @Test(arguments: [Demand.none, .max(1), .max(12_345), .max(Int.max), .unlimited])
  func codableRoundTrip(_ demand: Demand) throws {
    let data = try JSONEncoder().encode([demand])
    let decoded = try JSONDecoder().decode([Demand].self, from: data)
    #expect(decoded == [demand])
    #expect(decoded[0].max == demand.max)
  }

  @Test func unlimitedEncodesAsCombineDoesIntMaxPlusOne() throws {
    // What Combine writes on Apple platforms, so encoded demand crosses between them.
    let json = try JSONEncoder().encode([Demand.unlimited, .max(42)])
    #expect(String(decoding: json, as: UTF8.self) == "[9223372036854775808,42]")
    let encoder = PropertyListEncoder()
    encoder.outputFormat = .xml
    let plist = String(decoding: try encoder.encode([Demand.unlimited]), as: UTF8.self)
    #expect(plist.contains("<integer>9223372036854775808</integer>"))
    let decoded = try PropertyListDecoder().decode([Demand].self, from: try encoder.encode([Demand.unlimited]))
    #expect(decoded == [.unlimited])
  }

  @Test func decodingANegativeCountIsAnError() {
    #expect(throws: DecodingError.self) {
      try JSONDecoder().decode([Demand].self, from: Data("[-1]".utf8))
    }
  }

  @Test func decodingACountAboveIntMaxGivesUnlimited() throws {
    // No finite demand exceeds Int.max, so a larger encoded count can only mean unlimited.
    let data = Data("[9223372036854775808, 9223372036854775809]".utf8)
    let decoded = try JSONDecoder().decode([Demand].self, from: data)
    #expect(decoded == [.unlimited, .unlimited])
    #expect(decoded[1].description == "unlimited")
  }

  // MARK: Preconditions (each runs in a child process)

  @Test func negativeMaxStopsTheProcess() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      _ = Subscribers.Demand.max(-1)
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("demand cannot be negative"))
  }

  @Test func requestingNoneFromJustStopsTheProcess() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
      Just(1).subscribe(subscriber)
      subscriber.request(.none)
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("request(.none)"))
  }

  @Test func validDemandDoesNotStopTheProcess() async {
    await #expect(processExitsWith: .success) {
      _ = Subscribers.Demand.max(0) + .max(1)
    }
  }

  /// Unlimited absorbs every arithmetic with integers, even `Int.min` and `Int.max`; a finite
  /// demand minus unlimited is none.
  /// Evidence (OpenCombine): SubscribersDemandTests.swift `testAddition` (`.unlimited` `+= Int.min`),
  /// `testSubtraction` (`.max(42) - .unlimited == .max(0)`, `.unlimited -= Int.max`,
  /// `.unlimited - .unlimited`), `testMultiplication` (`.unlimited * Int.max`, `.none *= 10`).
  @Test func unlimitedAbsorbsExtremeIntegers() {
    var demand = Subscribers.Demand.unlimited
    demand += Int.min
    #expect(demand == .unlimited)
    demand -= Int.max
    #expect(demand == .unlimited)
    demand -= .unlimited
    #expect(demand == .unlimited)
    #expect(Subscribers.Demand.unlimited * Int.max == .unlimited)
    #expect(Subscribers.Demand.max(42) - .unlimited == .max(0))
    var none = Subscribers.Demand.none
    none *= 10
    #expect(none == .none)
    var finite = Subscribers.Demand.max(100)
    finite -= .max(1)
    finite -= 21
    #expect(finite == .max(78))
    finite -= .unlimited
    #expect(finite == .none)
  }
}

import Conduit
import ConduitTesting
import Foundation
import Testing

private typealias Stride = ImmediateScheduler.SchedulerTimeType.Stride

/// Runs `body` with a scheduler known only by its protocol, as operators see it.
private func scheduleEverything<S: Scheduler>(on scheduler: S, _ record: @escaping (String) -> Void) -> any Cancellable
{
  scheduler.schedule { record("now") }
  scheduler.schedule(after: scheduler.now) { record("after") }
  scheduler.schedule(after: scheduler.now, tolerance: scheduler.minimumTolerance) { record("tolerance") }
  return scheduler.schedule(after: scheduler.now, interval: .seconds(1)) { record("repeating") }
}

@Suite(.leakChecked)
struct ImmediateSchedulerTests {
  @Test func timeNeverMoves() {
    let now = ImmediateScheduler.shared.now
    #expect(now == ImmediateScheduler.shared.now)
    #expect(now == now.advanced(by: 100))
    #expect(now.distance(to: now.advanced(by: -1)) == 0)
    #expect(ImmediateScheduler.shared.minimumTolerance == 0)
  }

  @Test func strideLiteralsAreItsValue() {
    #expect(Stride(14) == 14)
    #expect(Stride(-4) == -4)
    // A floating-point literal is rounded toward zero.
    #expect(Stride(14) == 14.6)
    #expect(Stride(-4) == -4.1)
    #expect(Stride(exactly: 7 as UInt8) == 7)
    #expect(Stride(exactly: UInt64.max) == nil)
  }

  @Test func strideComparesAndComputes() {
    #expect(Stride(1) < Stride(2))
    #expect(Stride(-10) < Stride(2))
    #expect(Stride(-4) * Stride(5) == Stride(-20))
    #expect(Stride(-4) + Stride(5) == Stride(1))
    #expect(Stride(10) - Stride(3) == Stride(7))
    #expect(-Stride(3) == Stride(-3))
    var stride = Stride(-4)
    stride += 5
    #expect(stride == 1)
    stride -= -10
    #expect(stride == 11)
    stride *= 2
    #expect(stride == 22)
    #expect(stride.magnitude == 22)
  }

  @Test func strideFactoriesAreZero() {
    #expect(Stride.seconds(1.2) == 0)
    #expect(Stride.seconds(1_100) == 0)
    #expect(Stride.milliseconds(123) == 0)
    #expect(Stride.microseconds(51) == 0)
    #expect(Stride.nanoseconds(23) == 0)
  }

  @Test func strideEncodesItsMagnitude() throws {
    let encoded = try JSONEncoder().encode(["value": Stride(-42)])
    #expect(String(decoding: encoded, as: UTF8.self) == #"{"value":{"magnitude":-42}}"#)
    #expect(try JSONDecoder().decode([String: Stride].self, from: encoded)["value"] == -42)
  }

  @Test func actionsRunAtOnceOnTheCallingThread() {
    var fired: [String] = []
    let cancellable = scheduleEverything(on: ImmediateScheduler.shared) { fired.append($0) }
    #expect(fired == ["now", "after", "tolerance", "repeating"])
    ImmediateScheduler.shared.schedule(options: nil) { fired.append("options") }
    ImmediateScheduler.shared.schedule(after: ImmediateScheduler.shared.now, tolerance: 0, options: nil) {
      fired.append("after with options")
    }
    #expect(fired.suffix(2) == ["options", "after with options"])
    _ = cancellable
  }

  @Test func repeatingRunsOnceAndReturnsAnEmptyCancellable() {
    var runs = 0
    let cancellable = ImmediateScheduler.shared.schedule(
      after: ImmediateScheduler.shared.now, interval: 10, tolerance: 0, options: nil
    ) { runs += 1 }
    #expect(runs == 1)
    #expect(String(describing: cancellable) == "Empty")
    cancellable.cancel()
    cancellable.cancel()
    #expect(runs == 1)
  }

}

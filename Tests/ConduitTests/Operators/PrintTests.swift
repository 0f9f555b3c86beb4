import Conduit
import ConduitTesting
import Synchronization
import Testing

private struct PrintTestError: Error, Equatable, CustomStringConvertible {
  var description: String { "oops" }
}

/// Collects what is written to it, and how many writes there were.
private final class TextCollector: TextOutputStream, @unchecked Sendable {
  private let state = Locked(TextCollectorBox())

  var text: String { state.withLock { $0.text } }
  var lines: [String] { text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }
  var writes: Int { state.withLock { $0.writes } }

  func write(_ string: String) {
    state.withLock { box in
      box.text += string
      box.writes += 1
    }
  }
}

/// Records each write separately.
private final class WriteCollector: TextOutputStream, @unchecked Sendable {
  private let state = Locked(TextCollectorBox())

  var writes: [String] { state.withLock { $0.strings } }

  func write(_ string: String) {
    state.withLock { $0.strings.append(string) }
  }
}

private struct TextCollectorBox: @unchecked Sendable {
  var strings: [String] = []
  var text = ""
  var writes = 0
}

@Suite(.leakChecked)
struct PrintTests {
  @Test func logsAFinishedStreamInCombinesFormat() {
    let output = TextCollector()
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream.print("numbers", to: output).subscribe(subscriber)
    upstream.send(1)
    upstream.send(2)
    upstream.send(completion: .finished)
    #expect(
      output.lines == [
        "numbers: receive subscription: (HandDriven)",
        "numbers: request unlimited",
        "numbers: receive value: (1)",
        "numbers: receive value: (2)",
        "numbers: receive finished",
      ])
    #expect(subscriber.events == [.subscription, .value(1), .value(2), .completion(.finished)])
  }

  // Combine names a subject's subscription after the kind of subject.
  @Test func namesTheSubjectsSubscriptionAfterItsKind() {
    let passthrough = PassthroughSubject<Int, Never>()
    let current = CurrentValueSubject<Int, Never>(0)
    let output = TextCollector()
    let first = TestSubscriber<Int, Never>()
    let second = TestSubscriber<Int, Never>()
    passthrough.print("a", to: output).subscribe(first)
    current.print("b", to: output).subscribe(second)
    #expect(output.lines.contains("a: receive subscription: (PassthroughSubject)"))
    #expect(output.lines.contains("b: receive subscription: (CurrentValueSubject)"))
    first.cancel()
    second.cancel()
  }

  @Test func withoutAPrefixLinesStartWithTheEvent() {
    let output = TextCollector()
    let subscriber = TestSubscriber<String, Never>()
    Just("hello").print(to: output).subscribe(subscriber)
    #expect(
      output.lines == [
        "receive subscription: (Just)",
        "request unlimited",
        "receive value: (hello)",
        "receive finished",
      ])
    #expect(subscriber.values == ["hello"])
  }

  @Test func logsDemandRequestedAndReturned() {
    let output = TextCollector()
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
    upstream.print("p", to: output).subscribe(subscriber)
    upstream.send(1)
    subscriber.request(.max(3))
    subscriber.request(.unlimited)
    #expect(
      output.lines == [
        "p: receive subscription: (HandDriven)",
        "p: request max: (1)",
        "p: receive value: (1)",
        "p: request max: (1) (synchronous)",
        "p: request max: (3)",
        "p: request unlimited",
      ])
    #expect(upstream.link?.requests == [.max(1), .max(3), .unlimited])
    subscriber.cancel()
  }

  @Test func logsUnlimitedDemandReturnedSynchronously() {
    let output = TextCollector()
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .unlimited)
    upstream.print(to: output).subscribe(subscriber)
    upstream.send(1)
    #expect(output.lines.last == "request unlimited (synchronous)")
    subscriber.cancel()
  }

  @Test func logsFailure() {
    let output = TextCollector()
    let upstream = HandDrivenUpstream<Int, PrintTestError>()
    let subscriber = TestSubscriber<Int, PrintTestError>()
    upstream.print("p", to: output).subscribe(subscriber)
    upstream.send(completion: .failure(PrintTestError()))
    #expect(
      output.lines == [
        "p: receive subscription: (HandDriven)",
        "p: request unlimited",
        "p: receive error: (oops)",
      ])
    #expect(subscriber.completion == .failure(PrintTestError()))
  }

  @Test func logsCancelAndCancelsUpstream() {
    let output = TextCollector()
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream.print("p", to: output).subscribe(subscriber)
    upstream.send(1)
    subscriber.cancel()
    upstream.send(2)
    #expect(upstream.link?.isCancelled == true)
    #expect(
      output.lines == [
        "p: receive subscription: (HandDriven)",
        "p: request unlimited",
        "p: receive value: (1)",
        "p: receive cancel",
      ])
    #expect(subscriber.events == [.subscription, .value(1)])
  }

  // As in Combine (OpenCombine's PrintTests.swift `testPrintWithPrefix`): each line is written
  // as `Swift.print` writes it, in three writes: an empty separator, the line, the newline.
  @Test func writesEachLineAsSwiftPrintDoes() {
    let output = WriteCollector()
    let subscriber = TestSubscriber<Int, Never>()
    [1].publisher.print("p", to: output).subscribe(subscriber)
    #expect(
      output.writes == [
        "", "p: receive subscription: ([1])", "\n", "", "p: request unlimited", "\n", "", "p: receive value: (1)", "\n",
        "", "p: receive finished", "\n",
      ])
  }

  @Test func neverDeliversBeyondDemand() {
    let output = TextCollector()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
    (1...5).publisher.print(to: output).subscribe(subscriber)
    #expect(subscriber.values == [1, 2])
    subscriber.request(.max(1))
    #expect(subscriber.values == [1, 2, 3])
    subscriber.cancel()
    #expect(subscriber.violations.isEmpty)
    #expect(output.lines.filter { $0.hasPrefix("receive value") }.count == 3)
  }

  @Test func aLogLineWrittenFromInsideAWriteComesAfterIt() {
    // A stream that cancels the subscription while writing the first value's line: the cancel
    // line is queued, not written inside the write, and follows the value's line.
    final class CancellingCollector: TextOutputStream, @unchecked Sendable {
      var lines: [String] = []
      var onWrite: ((String) -> Void)?
      func write(_ string: String) {
        lines.append(string)
        onWrite?(string)
      }
    }
    let output = CancellingCollector()
    let upstream = HandDrivenUpstream<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>()
    upstream.print(to: output).subscribe(subscriber)
    output.onWrite = { line in
      if line.hasPrefix("receive value") { subscriber.cancel() }
    }
    upstream.send(1)
    #expect(output.lines.suffix(6) == ["", "receive value: (1)", "\n", "", "receive cancel", "\n"])
    output.onWrite = nil
  }

  @Test func exposesItsParts() {
    let output = TextCollector()
    let print = Publishers.Print(upstream: Just(1), prefix: "p", to: output)
    #expect(print.upstream == Just(1))
    #expect(print.prefix == "p")
    #expect(print.stream != nil)
    #expect(Just(1).print().stream == nil)
  }

  /// A cancel lets go of the subscriber after the operator's lock: a subscriber that cancels its
  /// subscription in its `deinit` stopped the process on the lock taken twice.
  @Test func subscriberMayCancelItsSubscriptionInItsDeinit() {
    let output = TextCollector()
    let upstream = PassthroughSubject<Int, Never>()
    let holder = DeinitCancellingSubscriber<Int, Never>.Holder()
    upstream.print("p", to: output).subscribe(DeinitCancellingSubscriber<Int, Never>(holder: holder))
    holder.subscription?.cancel()
    #expect(holder.cancelledInDeinit)
    #expect(output.lines.last == "p: receive cancel")
    holder.subscription = nil
  }

  // MARK: As Combine (OpenCombine's PrintTests.swift)

  // `testReceiveSubscriptionTwice`: a rejected subscription is logged too.
  @Test func logsARejectedSubscription() {
    let output = TextCollector()
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.print(to: output).subscribe(subscriber)
    let second = SpySubscription()
    upstream.sendSubscription(second)
    #expect(second.cancelCount == 1)
    #expect(output.lines.count == 2)
    #expect(output.lines.allSatisfy { $0.hasPrefix("receive subscription: (") })
    subscriber.cancel()
    #expect(output.lines.last == "receive cancel")
  }

  // `testPrintReceiveValueBeforeSubscription`, `testPrintReceiveCompletionBeforeSubscription`:
  // a value or a completion that comes before the subscription is logged and passed through.
  @Test func aValueOrCompletionBeforeTheSubscriptionPassesThrough() {
    let output = TextCollector()
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless, sendsSubscription: false)
    let subscriber = RecordingSubscriber<Int, Never>(demandPerValue: .max(42))
    upstream.print(to: output).subscribe(subscriber)
    #expect(upstream.send(0) == .max(42))
    upstream.send(completion: .finished)
    #expect(subscriber.history == ["value(0)", "finished"])
    #expect(output.lines == ["receive value: (0)", "request max: (42) (synchronous)", "receive finished"])
  }

  // `testPrintRequestBeforeSubscription`, `testPrintCancelBeforeSubscription`: a request or a
  // cancel before the subscription is only logged; the subscription, when it comes, is taken.
  @Test func aRequestOrCancelBeforeTheSubscriptionIsOnlyLogged() throws {
    let output = TextCollector()
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless, sendsSubscription: false)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.print(to: output).subscribe(subscriber)
    let early = try #require(upstream.subscriberAsSubscription)
    early.request(.max(1))
    early.cancel()
    upstream.sendSubscription()
    #expect(upstream.requests.isEmpty)
    #expect(upstream.cancelCount == 0)
    #expect(subscriber.events == [.subscription])
    #expect(output.lines.prefix(2) == ["request max: (1)", "receive cancel"])
    subscriber.cancel()
    #expect(upstream.cancelCount == 1)
  }

  // Combine's print passes any demand on; `.none` is logged and passed on too.
  @Test func aRequestForNothingIsLoggedAndPassedOn() {
    let output = TextCollector()
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    upstream.print(to: output).subscribe(subscriber)
    subscriber.subscription?.request(.none)
    #expect(upstream.requests == [.none])
    #expect(output.lines.last == "request max: (0)")
    subscriber.cancel()
  }

  // `testPrintReflection`.
  @Test func reflectsAsCombineDoes() throws {
    let upstream = HandDrivenUpstream<Int, Never>(conduct: .careless, sendsSubscription: false)
    upstream.print(to: TextCollector()).subscribe(TestSubscriber<Int, Never>())
    let inner = try #require(upstream.subscriberObject)
    #expect((inner as? any CustomStringConvertible)?.description == "Print")
    #expect((inner as? any CustomReflectable)?.customMirror.children.isEmpty == true)
    #expect((inner as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "Print")
    upstream.send(completion: .finished)
  }

  /// Print writes each event's line before passing the event on (so it comes before what the
  /// call does), and the `(synchronous)` line for returned demand after the subscriber's
  /// `receive(_:)` returns.
  /// Evidence (OpenCombine): PrintTests.swift `testPrintWithPrefix` / `testPrintWithoutPrefix` (expected
  /// output interleaving "callback …" lines written by the subscription and the subscriber).
  @Test func printWritesEachLineBeforeThePassedOnCall() {
    let stream = SharedStream()
    let upstream = HandDrivenUpstream<Int, ParityFailure>(name: "RecordingUpstream", conduct: .careless)
    upstream.onRequest = { _ in stream.write("callback request demand\n") }
    upstream.onCancel = { stream.write("callback cancel subscription\n") }
    let subscriber = RecordingSubscriber<Int, ParityFailure>(initialDemand: .none)
    subscriber.onSubscription = { subscription in
      stream.write("callback subscription\n")
      subscription.request(.unlimited)
      subscription.request(.max(30))
    }
    subscriber.onValue = { value in
      stream.write("callback value\n")
      subscriber.subscription?.request(.max(100))
      return value == 10 ? .unlimited : .max(2)
    }
    subscriber.onCompletion = { _ in stream.write("callback completion\n") }
    upstream.print("👉", to: stream).subscribe(subscriber)
    #expect(upstream.send(1) == .max(2))
    subscriber.subscription?.request(.max(42))
    #expect(upstream.send(10) == .unlimited)
    upstream.send(completion: .failure(.oops))
    #expect(
      stream.lines == [
        "👉: receive subscription: (RecordingUpstream)",
        "callback subscription",
        "👉: request unlimited",
        "callback request demand",
        "👉: request max: (30)",
        "callback request demand",
        "👉: receive value: (1)",
        "callback value",
        "👉: request max: (100)",
        "callback request demand",
        "👉: request max: (2) (synchronous)",
        "👉: request max: (42)",
        "callback request demand",
        "👉: receive value: (10)",
        "callback value",
        "👉: request max: (100)",
        "callback request demand",
        "👉: request unlimited (synchronous)",
        "👉: receive error: (oops)",
        "callback completion",
      ])
    upstream.detach()

    let cancelled = HandDrivenUpstream<Int, Never>(conduct: .careless)
    cancelled.onCancel = { stream.write("callback cancel subscription\n") }
    let cancelling = RecordingSubscriber<Int, Never>(initialDemand: .none)
    cancelled.print(to: stream).subscribe(cancelling)
    stream.clear()
    cancelling.subscription?.cancel()
    #expect(stream.lines == ["receive cancel", "callback cancel subscription"])
    cancelled.detach()
  }
}

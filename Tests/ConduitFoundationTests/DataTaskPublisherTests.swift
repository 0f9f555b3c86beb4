import ConduitTesting
import Dispatch
import Foundation
import LoopbackHTTP
import Testing

@testable import ConduitFoundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What a data task subscriber received, in a form that crosses threads.
private struct Answer: Sendable {
  let data: Data
  let statusCode: Int?
  let url: URL?
  let contentType: String?

  init(_ output: URLSession.DataTaskPublisher.Output) {
    data = output.data
    let response = output.response as? HTTPURLResponse
    statusCode = response?.statusCode
    url = output.response.url
    contentType = response?.value(forHTTPHeaderField: "Content-Type")
  }
}

/// A subscriber that requests `initial` (or nothing) at subscription and records what comes.
private final class AnswerSubscriber: Subscriber, @unchecked Sendable {
  typealias Input = URLSession.DataTaskPublisher.Output
  typealias Failure = URLError

  let answers = Recorder<Answer>()
  let completions = Recorder<Subscribers.Completion<URLError>>()
  private let initial: Subscribers.Demand?
  private let keepsSubscription: Bool
  private let cancelsOnValue: Bool
  // Written once in `receive(subscription:)`, which runs inside `subscribe`, before the test reads it.
  private(set) var subscription: (any Subscription)?

  init(initial: Subscribers.Demand?, keepsSubscription: Bool = true, cancelsOnValue: Bool = false) {
    self.initial = initial
    self.keepsSubscription = keepsSubscription
    self.cancelsOnValue = cancelsOnValue
  }

  func receive(subscription: any Subscription) {
    if keepsSubscription { self.subscription = subscription }
    if let initial { subscription.request(initial) }
  }

  func receive(_ input: Input) -> Subscribers.Demand {
    if cancelsOnValue { subscription?.cancel() }
    answers.record(Answer(input))
    return .none
  }

  func receive(completion: Subscribers.Completion<URLError>) { completions.record(completion) }
}

/// Runs `body` against a fresh loopback server that answers as `handler` says, and a fresh
/// session; both end with the test.
private func withLoopback(
  _ handler: @escaping @Sendable (_ request: TestHTTPServer.Request, _ index: Int) -> TestHTTPServer.Reply,
  _ body: (TestHTTPServer, URLSession) throws -> Void
) throws {
  let server = try TestHTTPServer(handler: handler)
  defer { server.stop() }
  let session = URLSession.loopback()
  defer { session.finishTasksAndInvalidate() }
  try body(server, session)
}

/// Waits until the session's delegate queue has run everything queued on it so far, completion
/// handlers included.
private func drainDelegateQueue(of session: URLSession) {
  let drained = Recorder<Void>()
  session.delegateQueue.addOperation { drained.record() }
  drained.wait(forCount: 1)
}

private struct Item: Codable, Equatable {
  let id: Int
  let name: String
}

@Suite(.leakChecked)
struct DataTaskPublisherTests {
  @Test func okWithABodySendsTheBodyAndTheResponseThenFinishes() throws {
    try withLoopback({ _, _ in .text("hello, conduit") }) { server, session in
      let subscriber = AnswerSubscriber(initial: .max(1))
      session.dataTaskPublisher(for: server.url("/greeting")).subscribe(subscriber)
      subscriber.completions.wait(forCount: 1)
      let answers = subscriber.answers.recorded
      try #require(answers.count == 1)
      #expect(answers[0].data == Data("hello, conduit".utf8))
      #expect(answers[0].statusCode == 200)
      #expect(answers[0].url == server.url("/greeting"))
      #expect(answers[0].contentType == "text/plain; charset=utf-8")
      #expect(subscriber.completions.recorded.count == 1)
      guard case .finished = subscriber.completions.recorded.first else {
        Issue.record("expected .finished, got \(subscriber.completions.recorded)")
        return
      }
      #expect(server.requests.recorded.map(\.method) == ["GET"])
      #expect(server.requests.recorded.map(\.path) == ["/greeting"])
    }
  }

  @Test(arguments: [404, 500])
  func anHTTPErrorStatusIsAValueNotAFailure(status: Int) throws {
    try withLoopback({ _, _ in .text("no luck", status: status) }) { server, session in
      let subscriber = AnswerSubscriber(initial: .unlimited)
      session.dataTaskPublisher(for: server.url("/missing")).subscribe(subscriber)
      subscriber.completions.wait(forCount: 1)
      #expect(subscriber.answers.recorded.map(\.statusCode) == [status])
      #expect(subscriber.answers.recorded.map(\.data) == [Data("no luck".utf8)])
      guard case .finished = subscriber.completions.recorded.first else {
        Issue.record("expected .finished, got \(subscriber.completions.recorded)")
        return
      }
    }
  }

  @Test func aRequestPublisherSendsTheMethodHeadersAndBody() throws {
    let echo: @Sendable (TestHTTPServer.Request, Int) -> TestHTTPServer.Reply = { request, _ in
      .respond(status: 201, body: request.body, contentType: request.headers["content-type"])
    }
    try withLoopback(echo) { server, session in
      var request = URLRequest(url: server.url("/items"))
      request.httpMethod = "POST"
      request.httpBody = Data(#"{"id":1,"name":"pen"}"#.utf8)
      request.setValue("application/json", forHTTPHeaderField: "Content-Type")
      request.setValue("conduit", forHTTPHeaderField: "X-Client")
      let publisher = session.dataTaskPublisher(for: request)
      #expect(publisher.request == request)
      #expect(publisher.session === session)
      let subscriber = AnswerSubscriber(initial: .max(1))
      publisher.subscribe(subscriber)
      subscriber.completions.wait(forCount: 1)
      let received = try #require(server.requests.recorded.first)
      #expect(received.method == "POST")
      #expect(received.path == "/items")
      #expect(received.headers["x-client"] == "conduit")
      #expect(received.body == Data(#"{"id":1,"name":"pen"}"#.utf8))
      #expect(subscriber.answers.recorded.map(\.statusCode) == [201])
      #expect(subscriber.answers.recorded.map(\.data) == [Data(#"{"id":1,"name":"pen"}"#.utf8)])
      #expect(subscriber.answers.recorded.map(\.contentType) == ["application/json"])
    }
  }

  @Test func theInitializerAndTheURLMethodBuildTheSamePublisher() {
    let session = URLSession.loopback()
    defer { session.finishTasksAndInvalidate() }
    let url = URL(string: "http://127.0.0.1:9/nowhere")!
    let fromURL = session.dataTaskPublisher(for: url)
    let direct = URLSession.DataTaskPublisher(request: URLRequest(url: url), session: session)
    #expect(fromURL.request == direct.request)
    #expect(fromURL.request.url == url)
    #expect(fromURL.session === session)
  }

  @Test func aConnectionClosedWithoutAResponseFailsWithItsURLError() throws {
    try withLoopback({ _, _ in .closeWithoutResponding }) { server, session in
      let subscriber = AnswerSubscriber(initial: .unlimited)
      session.dataTaskPublisher(for: server.url("/hang-up")).subscribe(subscriber)
      subscriber.completions.wait(forCount: 1)
      #expect(subscriber.answers.count == 0)
      guard case .failure(let error) = subscriber.completions.recorded.first else {
        Issue.record("expected a failure, got \(subscriber.completions.recorded)")
        return
      }
      // Foundation's own code for the transfer, not the `.unknown` that stands for non-URL errors.
      #expect(error.code != .unknown)
      #expect(server.requests.count == 1)
    }
  }

  @Test func nothingReachesTheServerBeforeTheFirstDemand() throws {
    try withLoopback({ request, _ in .text(request.path) }) { server, session in
      let subscriber = AnswerSubscriber(initial: nil)
      session.dataTaskPublisher(for: server.url("/demanded")).subscribe(subscriber)
      // A request sent after the subscription and answered gives one the subscription had
      // started the time to reach the server: only the probe may have.
      let probed = Recorder<Void>()
      session.dataTask(with: server.url("/probe")) { _, _, _ in probed.record() }.resume()
      probed.wait(forCount: 1)
      #expect(server.requests.recorded.map(\.path) == ["/probe"])
      #expect(subscriber.answers.count == 0)
      #expect(subscriber.completions.count == 0)

      let subscription = try #require(subscriber.subscription)
      subscription.request(.max(1))
      // Further demand adds nothing: one task, one answer.
      subscription.request(.max(2))
      subscriber.completions.wait(forCount: 1)
      #expect(server.requests.recorded.map(\.path) == ["/probe", "/demanded"])
      #expect(subscriber.answers.recorded.map(\.data) == [Data("/demanded".utf8)])
    }
  }

  @Test func aCancelBeforeDemandMeansNoRequestEver() throws {
    try withLoopback({ request, _ in .text(request.path) }) { server, session in
      let subscriber = AnswerSubscriber(initial: nil)
      session.dataTaskPublisher(for: server.url("/never")).subscribe(subscriber)
      let subscription = try #require(subscriber.subscription)
      #expect(String(describing: subscription) == "DataTaskPublisher")
      subscription.cancel()
      subscription.request(.max(1))
      let probed = Recorder<Void>()
      session.dataTask(with: server.url("/probe")) { _, _, _ in probed.record() }.resume()
      probed.wait(forCount: 1)
      drainDelegateQueue(of: session)
      #expect(server.requests.recorded.map(\.path) == ["/probe"])
      #expect(subscriber.answers.count == 0)
      #expect(subscriber.completions.count == 0)
    }
  }

  @Test func aCancelMidFlightCancelsTheTaskAndNothingMoreArrives() throws {
    try withLoopback({ _, _ in .holdUntilClientCloses }) { server, session in
      let subscriber = AnswerSubscriber(initial: .unlimited)
      session.dataTaskPublisher(for: server.url("/slow")).subscribe(subscriber)
      server.requests.wait(forCount: 1)
      // Sound: a subscription's cancel is safe from any thread, which is what the test checks.
      nonisolated(unsafe) let subscription = try #require(subscriber.subscription)
      // Idempotent and safe from any thread.
      DispatchQueue.concurrentPerform(iterations: 4) { _ in subscription.cancel() }
      subscription.cancel()
      server.clientClosures.wait(forCount: 1)
      // The cancelled task's completion handler, if it runs, has run by now; it reaches no one.
      drainDelegateQueue(of: session)
      #expect(subscriber.answers.count == 0)
      #expect(subscriber.completions.count == 0)
    }
  }

  @Test func cancelsRacingTheAnswersDeliverEachAtMostOnceAndInOrder() throws {
    try withLoopback({ _, _ in .text("raced") }) { server, session in
      let subscribers = (0..<16).map { _ in AnswerSubscriber(initial: nil) }
      for subscriber in subscribers { session.dataTaskPublisher(for: server.url("/race")).subscribe(subscriber) }
      // Sound: subscriptions are safe to request and cancel from any thread.
      nonisolated(unsafe) let subscriptions = try subscribers.map { try #require($0.subscription) }
      DispatchQueue.concurrentPerform(iterations: subscriptions.count) { subscriptions[$0].request(.max(1)) }
      server.requests.wait(forCount: subscriptions.count)
      // The answers are on their way back while the cancels come, from several threads.
      DispatchQueue.concurrentPerform(iterations: subscriptions.count) { subscriptions[$0].cancel() }
      drainDelegateQueue(of: session)
      for subscriber in subscribers {
        let answers = subscriber.answers.recorded
        let completions = subscriber.completions.recorded
        #expect(answers.count <= 1)
        #expect(completions.count <= 1)
        if let completion = completions.first {
          guard case .finished = completion else {
            Issue.record("expected .finished, got \(completion)")
            continue
          }
          #expect(answers.count == 1)
        }
      }
    }
  }

  @Test func aCancelFromInsideTheValueKeepsTheFinishedBack() throws {
    try withLoopback({ _, _ in .text("last word") }) { server, session in
      let subscriber = AnswerSubscriber(initial: .max(1), cancelsOnValue: true)
      session.dataTaskPublisher(for: server.url()).subscribe(subscriber)
      subscriber.answers.wait(forCount: 1)
      drainDelegateQueue(of: session)
      #expect(subscriber.answers.recorded.map(\.data) == [Data("last word".utf8)])
      #expect(subscriber.completions.count == 0)
    }
  }

  @Test func theSubscriptionIsReflectedAsCombines() throws {
    try withLoopback({ _, _ in .holdUntilClientCloses }) { server, session in
      let subscriber = AnswerSubscriber(initial: .max(1))
      let publisher = session.dataTaskPublisher(for: server.url("/held"))
      publisher.subscribe(subscriber)
      let subscription = try #require(subscriber.subscription)
      subscription.request(.max(2))
      server.requests.wait(forCount: 1)
      let running = Mirror(reflecting: subscription)
      #expect(running.children.map(\.label) == ["task", "downstream", "parent", "demand"])
      let values = Dictionary(uniqueKeysWithValues: running.children.map { ($0.label!, $0.value) })
      #expect(values["task"] as? URLSessionDataTask != nil)
      #expect(values["downstream"] as? AnswerSubscriber === subscriber)
      #expect((values["parent"] as? URLSession.DataTaskPublisher)?.request == publisher.request)
      #expect(values["demand"] as? Subscribers.Demand == .max(3))
      subscription.cancel()
      server.clientClosures.wait(forCount: 1)
      let ended = Mirror(reflecting: subscription).children.map { String(describing: $0.value) }
      #expect(ended == ["nil", "nil", "nil", "max(0)"])
    }
  }

  @Test func aSubscriberThatKeepsNoSubscriptionStillHearsTheAnswer() throws {
    try withLoopback({ _, _ in .text("kept alive by the task") }) { server, session in
      let subscriber = AnswerSubscriber(initial: .unlimited, keepsSubscription: false)
      session.dataTaskPublisher(for: server.url()).subscribe(subscriber)
      subscriber.completions.wait(forCount: 1)
      #expect(subscriber.answers.recorded.map(\.data) == [Data("kept alive by the task".utf8)])
    }
  }

  @Test func retryStartsAFreshTaskAfterEachFailure() throws {
    try withLoopback({ _, index in index < 2 ? .closeWithoutResponding : .text("third time lucky") }) {
      server, session in
      let values = Recorder<Data>()
      let completions = Recorder<Subscribers.Completion<URLError>>()
      let cancellable = session.dataTaskPublisher(for: server.url("/flaky"))
        .retry(2)
        .sink(receiveCompletion: { completions.record($0) }, receiveValue: { values.record($0.data) })
      completions.wait(forCount: 1)
      #expect(values.recorded == [Data("third time lucky".utf8)])
      guard case .finished = completions.recorded.first else {
        Issue.record("expected .finished, got \(completions.recorded)")
        return
      }
      #expect(server.requests.count == 3)
      cancellable.cancel()
    }
  }

  @Test func retryGivesUpWithTheLastFailure() throws {
    try withLoopback({ _, _ in .closeWithoutResponding }) { server, session in
      let completions = Recorder<Subscribers.Completion<URLError>>()
      let cancellable = session.dataTaskPublisher(for: server.url("/down"))
        .retry(1)
        .sink(receiveCompletion: { completions.record($0) }, receiveValue: { _ in })
      completions.wait(forCount: 1)
      guard case .failure = completions.recorded.first else {
        Issue.record("expected a failure, got \(completions.recorded)")
        return
      }
      #expect(server.requests.count == 2)
      cancellable.cancel()
    }
  }

  @Test func aJSONBodyDecodesIntoAModel() throws {
    try withLoopback({ _, _ in .json(#"{"id":7,"name":"fountain pen"}"#) }) { server, session in
      let items = Recorder<Item>()
      let completions = Recorder<Void>()
      let cancellable = session.dataTaskPublisher(for: server.url("/items/7"))
        .map(\.data)
        .decode(type: Item.self, decoder: JSONDecoder())
        .sink(
          receiveCompletion: { completion in
            if case .failure(let error) = completion { Issue.record("decoding failed: \(error)") }
            completions.record()
          },
          receiveValue: { items.record($0) })
      completions.wait(forCount: 1)
      #expect(items.recorded == [Item(id: 7, name: "fountain pen")])
      cancellable.cancel()
    }
  }

  @Test func aJSONBodyOfTheWrongShapeFailsTheDecoding() throws {
    try withLoopback({ _, _ in .json(#"{"id":"seven"}"#) }) { server, session in
      let failures = Recorder<String>()
      let cancellable = session.dataTaskPublisher(for: server.url("/items/7"))
        .map(\.data)
        .decode(type: Item.self, decoder: JSONDecoder())
        .sink(
          receiveCompletion: { completion in
            if case .failure(let error) = completion { failures.record(String(describing: type(of: error))) }
          },
          receiveValue: { Issue.record("unexpected \($0)") })
      failures.wait(forCount: 1)
      #expect(failures.recorded == ["DecodingError"])
      cancellable.cancel()
    }
  }

  @Test func requestingNothingStopsTheProcess() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let session = URLSession.loopback()
      let subscriber = AnswerSubscriber(initial: Subscribers.Demand.none)
      session.dataTaskPublisher(for: URL(string: "http://127.0.0.1:9/")!).subscribe(subscriber)
    }
    let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(message.contains("Subscription.request(.none)"))
  }

  @Test func anErrorThatIsNotAURLErrorBecomesUnknown() {
    struct Other: Error {}
    let answer = dataTaskAnswer(data: Data("x".utf8), response: nil, error: Other())
    #expect(answer.failureCode == .unknown)
  }

  @Test func aURLErrorIsPassedOnAsItIs() {
    let answer = dataTaskAnswer(data: nil, response: nil, error: URLError(.timedOut))
    #expect(answer.failureCode == .timedOut)
  }

  @Test func anNSErrorInTheURLErrorDomainBecomesTheURLErrorOfItsCode() {
    let error = NSError(domain: NSURLErrorDomain, code: URLError.Code.networkConnectionLost.rawValue)
    let answer = dataTaskAnswer(data: nil, response: nil, error: error)
    #expect(answer.failureCode == .networkConnectionLost)
  }

  @Test func neitherAnErrorNorAResponseIsUnknown() {
    #expect(dataTaskAnswer(data: Data(), response: nil, error: nil).failureCode == .unknown)
  }

  @Test func aResponseWithoutDataIsAnEmptyBody() throws {
    let response = URLResponse(
      url: URL(string: "http://127.0.0.1/")!, mimeType: nil, expectedContentLength: 0, textEncodingName: nil)
    let output = try dataTaskAnswer(data: nil, response: response, error: nil).get()
    #expect(output.data.isEmpty)
    #expect(output.response === response)
  }

  /// The decisions of the subscription, driven directly: the downstream is a name, the parent a
  /// request number and the task an identifier.
  @Suite struct StateMachine {
    typealias Machine = DataTaskSubscriptionStateMachine<String, Int, String>

    @Test func theFirstRequestStartsTheTaskAndLaterOnesResumeItAgainAsCombine() {
      var machine = Machine(downstream: "sink", parent: 1)
      guard case .start(1) = machine.request(.max(1)) else {
        Issue.record("the first request did not start the task")
        return
      }
      guard case .none = machine.request(.max(1)) else {
        Issue.record("a request while starting did something")
        return
      }
      guard case .resume("task") = machine.started("task") else {
        Issue.record("the started task was not resumed")
        return
      }
      guard case .resume("task") = machine.request(.max(1)) else {
        Issue.record("a request while running did not resume the task again")
        return
      }
    }

    @Test func laterRequestsAddToTheDemandAndTheReflectionShowsIt() {
      var machine = Machine(downstream: "sink", parent: 1)
      #expect(machine.reflection == (nil, "sink", 1, .none))
      _ = machine.request(.max(1))
      _ = machine.request(.max(2))
      #expect(machine.reflection == (nil, "sink", 1, .max(3)))
      _ = machine.started("task")
      _ = machine.request(.unlimited)
      #expect(machine.reflection == ("task", "sink", 1, .unlimited))
      _ = machine.cancel()
      #expect(machine.reflection == (nil, nil, nil, .none))
    }

    @Test func aSuccessDeliversAValueThenFinishes() {
      var machine = Machine(downstream: "sink", parent: 1)
      _ = machine.request(.max(1))
      _ = machine.started("task")
      guard case .deliver("sink") = machine.answered(succeeded: true) else {
        Issue.record("the answer was not delivered")
        return
      }
      let first = machine.finished()
      let second = machine.finished()
      #expect(first)
      #expect(!second)
      guard case .terminal = machine.state else {
        Issue.record("not terminal after finishing: \(machine.state)")
        return
      }
    }

    @Test func aFailureDeliversAndEndsAtOnce() {
      var machine = Machine(downstream: "sink", parent: 1)
      _ = machine.request(.max(1))
      _ = machine.started("task")
      guard case .deliver("sink") = machine.answered(succeeded: false) else {
        Issue.record("the failure was not delivered")
        return
      }
      guard case .terminal = machine.state else {
        Issue.record("not terminal after a failure: \(machine.state)")
        return
      }
      let finishes = machine.finished()
      #expect(!finishes)
      guard case .ignore = machine.answered(succeeded: true) else {
        Issue.record("a second answer was delivered")
        return
      }
    }

    @Test func aCancelWhileRunningCancelsTheTaskOnceAndIgnoresItsAnswer() {
      var machine = Machine(downstream: "sink", parent: 1)
      _ = machine.request(.max(1))
      _ = machine.started("task")
      guard case .cancel("task", releasing: "sink") = machine.cancel() else {
        Issue.record("the running task was not cancelled")
        return
      }
      guard case .none = machine.cancel() else {
        Issue.record("a second cancel did something")
        return
      }
      guard case .ignore = machine.answered(succeeded: false) else {
        Issue.record("the cancelled task's answer was delivered")
        return
      }
    }

    @Test func aCancelBeforeDemandReleasesTheSubscriberAndNoTaskStarts() {
      var machine = Machine(downstream: "sink", parent: 1)
      guard case .release("sink") = machine.cancel() else {
        Issue.record("the subscriber was not released")
        return
      }
      guard case .none = machine.request(.max(1)) else {
        Issue.record("a request after cancel started a task")
        return
      }
    }

    @Test func aCancelWhileTheTaskIsCreatedCancelsItInsteadOfResumingIt() {
      var machine = Machine(downstream: "sink", parent: 1)
      _ = machine.request(.max(1))
      guard case .release("sink") = machine.cancel() else {
        Issue.record("the subscriber was not released")
        return
      }
      guard case .cancel("task") = machine.started("task") else {
        Issue.record("the task was resumed after cancel")
        return
      }
    }

    @Test func aCancelInsideTheValueHoldsTheCompletionBack() {
      var machine = Machine(downstream: "sink", parent: 1)
      _ = machine.request(.max(1))
      _ = machine.started("task")
      _ = machine.answered(succeeded: true)
      guard case .none = machine.cancel() else {
        Issue.record("a cancel during delivery did something")
        return
      }
      let finishes = machine.finished()
      #expect(!finishes)
    }
  }
}

extension Result where Failure == URLError {
  /// The code of the failure; `nil` for a success.
  fileprivate var failureCode: URLError.Code? {
    guard case .failure(let error) = self else { return nil }
    return error.code
  }
}

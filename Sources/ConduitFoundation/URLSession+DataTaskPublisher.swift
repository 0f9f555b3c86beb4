import Conduit
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension URLSession {
  /// A publisher that delivers the result of one data task: the body and the response, or the
  /// error that ended the transfer.
  ///
  /// Each subscription runs a task of its own, created and resumed when the subscriber first
  /// demands a value; nothing touches the network before that. The task's answer becomes one
  /// value followed by `.finished`, whatever the HTTP status code: a 404 or a 500 is a value, as in
  /// Combine, for the subscriber to judge. A transfer that fails ends the subscription with its
  /// `URLError`, or with `URLError(.unknown)` when the error is of another kind. Cancelling the
  /// subscription cancels the task, and nothing more reaches the subscriber; that holds for a
  /// cancel from inside `receive(_:)` too, which keeps the `.finished` back. A subscription lets
  /// go of the subscriber, the request and the task as soon as it finishes, fails or is cancelled.
  ///
  /// ```swift
  /// struct User: Decodable { let name: String }
  ///
  /// let cancellable = URLSession.shared
  ///   .dataTaskPublisher(for: URL(string: "https://example.com/user")!)
  ///   .map(\.data)
  ///   .decode(type: User.self, decoder: JSONDecoder())
  ///   .sink(receiveCompletion: { print($0) }, receiveValue: { print($0.name) })
  /// ```
  ///
  /// It is `Sendable`, which goes beyond Combine: it holds only a request and a session.
  public struct DataTaskPublisher: Publisher, Sendable {
    /// The kind of values published by this publisher: the body (empty when the response had none)
    /// and the response.
    public typealias Output = (data: Data, response: URLResponse)
    /// The kind of errors this publisher might publish.
    public typealias Failure = URLError

    /// The URL request performed by each subscription's data task.
    public let request: URLRequest
    /// The URL session that creates the data tasks.
    public let session: URLSession

    /// Creates a publisher that performs `request` with a data task of `session`, once for each
    /// subscription.
    ///
    /// ```swift
    /// var request = URLRequest(url: URL(string: "https://example.com/items")!)
    /// request.httpMethod = "POST"
    /// let publisher = URLSession.DataTaskPublisher(request: request, session: .shared)
    /// ```
    ///
    /// - Parameters:
    ///   - request: The URL request to perform.
    ///   - session: The URL session that creates the data tasks.
    public init(request: URLRequest, session: URLSession) {
      self.request = request
      self.session = session
    }

    /// Attaches the specified subscriber to this publisher; `subscribe(_:)` calls it.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == URLError {
      subscriber.receive(subscription: DataTaskSubscription(parent: self, downstream: subscriber))
    }
  }

  /// Returns a publisher that wraps a data task for the given URL.
  ///
  /// The publisher sends the body and the response when the task completes, or fails if the task
  /// fails; see ``DataTaskPublisher``.
  ///
  /// ```swift
  /// let cancellable = URLSession.shared.dataTaskPublisher(for: URL(string: "https://example.com")!)
  ///   .sink(receiveCompletion: { print($0) }, receiveValue: { print($0.data.count, "bytes") })
  /// ```
  ///
  /// - Parameter url: The URL for which to create a data task.
  /// - Returns: A publisher that wraps a data task for the URL.
  public func dataTaskPublisher(for url: URL) -> DataTaskPublisher {
    DataTaskPublisher(request: URLRequest(url: url), session: self)
  }

  /// Returns a publisher that wraps a data task for the given URL request.
  ///
  /// The publisher sends the body and the response when the task completes, or fails if the task
  /// fails; see ``DataTaskPublisher``.
  ///
  /// ```swift
  /// var request = URLRequest(url: URL(string: "https://example.com/items")!)
  /// request.httpMethod = "POST"
  /// request.httpBody = Data(#"{"name":"pen"}"#.utf8)
  /// let cancellable = URLSession.shared.dataTaskPublisher(for: request)
  ///   .sink(receiveCompletion: { print($0) }, receiveValue: { print($0.response) })
  /// ```
  ///
  /// - Parameter request: The URL request for which to create a data task.
  /// - Returns: A publisher that wraps a data task for the URL request.
  public func dataTaskPublisher(for request: URLRequest) -> DataTaskPublisher {
    DataTaskPublisher(request: request, session: self)
  }
}

/// What a data task's completion handler reaches, through its relay: one subscription.
protocol DataTaskAnswerReceiver: AnyObject, Sendable {
  func receive(data: Data?, response: URLResponse?, error: (any Error)?)
}

/// One subscriber's subscription to a `URLSession.DataTaskPublisher`.
///
/// Described, reflected and shown in playgrounds as Combine's: "DataTaskPublisher", with the
/// task, the subscriber, the publisher (as `parent`) and the demand, all `nil` (and `.none`) once
/// the subscription has ended.
private final class DataTaskSubscription<Downstream: Subscriber>: Subscription, DataTaskAnswerReceiver, CensusScoped,
  CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
where Downstream.Input == URLSession.DataTaskPublisher.Output, Downstream.Failure == URLError {
  typealias Machine = DataTaskSubscriptionStateMachine<Downstream, URLSession.DataTaskPublisher, URLSessionDataTask>

  // Guarded by its own lock.
  private let machine: Locked<Machine>
  // What the task's completion handler holds. It holds this subscription from the start of the
  // task to its end, as in Combine, so a subscriber that keeps no reference to its subscription
  // still hears the answer; emptied when the subscription ends, so that the subscription does
  // not live on with Foundation's record of the task.
  private let relay: DataTaskAnswerRelay
  private let census: CensusToken

  var censusScope: CensusScope? { census.scope }
  var description: String { "DataTaskPublisher" }
  var playgroundDescription: Any { description }

  var customMirror: Mirror {
    let reflection = machine.withLock { $0.reflection }
    let children: [Mirror.Child] = [
      ("task", reflection.task as Any), ("downstream", reflection.downstream as Any),
      ("parent", reflection.parent as Any), ("demand", reflection.demand),
    ]
    return Mirror(self, children: children)
  }

  init(parent: URLSession.DataTaskPublisher, downstream: Downstream) {
    census = CensusToken(DataTaskSubscription.self, inheritingFrom: downstream)
    machine = Locked(Machine(downstream: downstream, parent: parent))
    relay = DataTaskAnswerRelay(for: downstream)
  }

  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    let parent: URLSession.DataTaskPublisher
    switch machine.withLock({ $0.request(demand) }) {
    case .none:
      return
    case .resume(let task):
      task.resume()
      return
    case .start(let started):
      parent = started
    }
    relay.receiver.withLock { $0 = self }
    let relay = relay
    let task = parent.session.dataTask(with: parent.request) { data, response, error in
      relay.receiver.exchange(nil)?.receive(data: data, response: response, error: error)
    }
    switch machine.withLock({ $0.started(task) }) {
    case .resume(let task):
      task.resume()
    case .cancel(let task):
      relay.receiver.exchange(nil)
      task.cancel()
    }
  }

  func receive(data: Data?, response: URLResponse?, error: (any Error)?) {
    let answer = dataTaskAnswer(data: data, response: response, error: error)
    let succeeded = if case .success = answer { true } else { false }
    guard case .deliver(let downstream) = machine.withLock({ $0.answered(succeeded: succeeded) }) else { return }
    switch answer {
    case .success(let output):
      _ = downstream.receive(output)
      if machine.withLock({ $0.finished() }) { downstream.receive(completion: .finished) }
    case .failure(let error):
      downstream.receive(completion: .failure(error))
    }
  }

  func cancel() {
    // The subscriber and this subscription (which the relay may hold last) go after the lock.
    switch machine.withLock({ $0.cancel() }) {
    case .none:
      break
    case .release(let downstream):
      let released = relay.receiver.exchange(nil)
      withExtendedLifetime((downstream, released)) {}
    case .cancel(let task, let downstream):
      let released = relay.receiver.exchange(nil)
      task.cancel()
      withExtendedLifetime((downstream, released)) {}
    }
  }
}

/// What a data task's completion handler was given, as the subscriber receives it: the body
/// (empty when there was none) and the response; the `URLError` that ended the transfer; or
/// `URLError(.unknown)` for an error of another kind, or for neither an error nor a response.
///
/// Foundation on Linux reports transfer errors as `NSError`s in `NSURLErrorDomain`, which on
/// Apple platforms bridge to `URLError`; they become the `URLError` of the same code here too.
func dataTaskAnswer(
  data: Data?, response: URLResponse?, error: (any Error)?
) -> Result<URLSession.DataTaskPublisher.Output, URLError> {
  if let error {
    if let urlError = error as? URLError { return .failure(urlError) }
    let nsError = error as NSError
    guard nsError.domain == NSURLErrorDomain, let code = URLError.Code(rawValue: nsError.code) else {
      return .failure(URLError(.unknown))
    }
    return .failure(URLError(code, userInfo: nsError.userInfo))
  }
  guard let response else { return .failure(URLError(.unknown)) }
  return .success((data ?? Data(), response))
}

/// What a data task's completion handler holds: the subscription, until the answer comes or
/// the subscription ends.
///
/// Foundation decides how long the handler lives (until the task's answer has been handled, or
/// longer); the relay keeps that from deciding how long the subscription lives.
private final class DataTaskAnswerRelay: CensusScoped, Sendable {
  // Guarded by its own lock.
  let receiver = Locked<(any DataTaskAnswerReceiver)?>(nil)
  private let census: CensusToken

  var censusScope: CensusScope? { census.scope }

  init(for downstream: Any) {
    census = CensusToken(DataTaskAnswerRelay.self, inheritingFrom: downstream)
  }
}

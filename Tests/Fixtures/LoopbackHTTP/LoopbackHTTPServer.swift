import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A small HTTP/1.1 server on 127.0.0.1, for the tests and the Playground to point a
/// `URLSession` at.
///
/// Each connection carries one request: the server reads the request line, the headers and a
/// body of `Content-Length` bytes, asks the handler how to reply, and replies with
/// `Connection: close`. The handler decides per request, from the request and its number (0 for
/// the first), so a test can script a server that fails twice and then succeeds.
///
/// The accept loop and each connection run on threads of their own, which block on their
/// sockets; `stop()` shuts every socket down, which wakes them, and waits for them to finish.
public final class LoopbackHTTPServer: @unchecked Sendable {
  /// One request as the server read it.
  public struct Request: Sendable {
    /// The request method: `GET`, `POST` …
    public let method: String
    /// The path of the request line, with its query.
    public let path: String
    /// Header fields, their names lowercased.
    public let headers: [String: String]
    /// The body, `Content-Length` bytes of it.
    public let body: Data
  }

  /// How the server answers one request.
  public enum Reply: Sendable {
    /// A complete response with the given status code, body and `Content-Type`.
    case respond(status: Int, body: Data, contentType: String?)
    /// Closes the connection without a byte of response.
    case closeWithoutResponding
    /// Never answers; calls `onClientClose` when the client closes the connection.
    case holdUntilClientCloses

    /// A response whose body is `text` in UTF-8.
    public static func text(_ text: String, status: Int = 200) -> Reply {
      .respond(status: status, body: Data(text.utf8), contentType: "text/plain; charset=utf-8")
    }

    /// A response whose body is `json`, with `Content-Type: application/json`.
    public static func json(_ json: String, status: Int = 200) -> Reply {
      .respond(status: status, body: Data(json.utf8), contentType: "application/json")
    }
  }

  /// The port the server listens on.
  public let port: UInt16

  private let handler: @Sendable (Request, Int) -> Reply
  private let onRequest: @Sendable (Request) -> Void
  private let onClientClose: @Sendable () -> Void
  private let listener: Int32
  // Guarded by its own lock: the connections open now, shut down by `stop()`; and whether
  // `stop()` has begun, after which no connection is taken on.
  private let connections = Mutex<(open: Set<Int32>, stopping: Bool)>(([], false))
  private let requestCount = Atomic<Int>(0)
  private let threads = DispatchGroup()

  /// Starts a server on a free port of 127.0.0.1 that answers each request as `handler` says.
  ///
  /// - Parameters:
  ///   - onRequest: Called with each request once it is read and answered.
  ///   - onClientClose: Called each time a client closes a connection the server was holding.
  ///   - handler: How to answer a request, given the request and its number (0 for the first).
  public init(
    onRequest: @escaping @Sendable (Request) -> Void = { _ in }, onClientClose: @escaping @Sendable () -> Void = {},
    handler: @escaping @Sendable (_ request: Request, _ index: Int) -> Reply
  ) throws {
    self.handler = handler
    self.onRequest = onRequest
    self.onClientClose = onClientClose
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard listener >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
        bind(listener, address, length) == 0 && listen(listener, 16) == 0
          && getsockname(listener, address, &length) == 0
      }
    }
    guard bound else {
      let error = POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
      close(listener)
      throw error
    }
    self.listener = listener
    port = UInt16(bigEndian: address.sin_port)
    threads.enter()
    Thread { [self] in
      acceptConnections()
      threads.leave()
    }.start()
  }

  /// The URL of `path` on this server.
  public func url(_ path: String = "/") -> URL {
    URL(string: "http://127.0.0.1:\(port)\(path)")!
  }

  /// Shuts the listening socket and every open connection down, waits up to `patience` for the
  /// server's threads to finish, and closes the listening socket. Returns whether they finished.
  @discardableResult
  public func stop(patience: Duration = .seconds(10)) -> Bool {
    connections.withLock { connections in
      connections.stopping = true
      // Shutting a socket down, unlike closing it, wakes a thread blocked in accept or recv.
      shutdown(listener, Int32(SHUT_RDWR))
      for connection in connections.open { shutdown(connection, Int32(SHUT_RDWR)) }
    }
    let finished = threads.wait(timeout: .now() + .milliseconds(Int(patience / .milliseconds(1)))) == .success
    close(listener)
    return finished
  }

  private func acceptConnections() {
    while true {
      let connection = accept(listener, nil, nil)
      guard connection >= 0 else {
        if errno == EINTR { continue }
        return
      }
      let taken = connections.withLock { connections in
        guard !connections.stopping else { return false }
        connections.open.insert(connection)
        return true
      }
      guard taken else {
        close(connection)
        return
      }
      threads.enter()
      Thread { [self] in
        serve(connection)
        connections.withLock { _ = $0.open.remove(connection) }
        close(connection)
        threads.leave()
      }.start()
    }
  }

  private func serve(_ connection: Int32) {
    guard let request = read(from: connection) else { return }
    let index = requestCount.wrappingAdd(1, ordering: .relaxed).oldValue
    let reply = handler(request, index)
    onRequest(request)
    switch reply {
    case .respond(let status, let body, let contentType):
      var head = "HTTP/1.1 \(status) \(HTTPURLResponse.localizedString(forStatusCode: status))\r\n"
      head += "Content-Length: \(body.count)\r\n"
      if let contentType { head += "Content-Type: \(contentType)\r\n" }
      head += "Connection: close\r\n\r\n"
      write(Data(head.utf8) + body, to: connection)
    case .closeWithoutResponding:
      break
    case .holdUntilClientCloses:
      var buffer = [UInt8](repeating: 0, count: 1024)
      while true {
        let received = recv(connection, &buffer, buffer.count, 0)
        if received > 0 || (received < 0 && errno == EINTR) { continue }
        // 0 is the client's close; an error (the shutdown of `stop()`) is not.
        if received == 0 && !connections.withLock({ $0.stopping }) { onClientClose() }
        return
      }
    }
  }

  /// Reads one request: the head up to the blank line, then `Content-Length` bytes of body.
  /// Returns `nil` if the connection ends first.
  private func read(from connection: Int32) -> Request? {
    var received = Data()
    let separator = Data("\r\n\r\n".utf8)
    var buffer = [UInt8](repeating: 0, count: 4096)
    func receiveMore() -> Bool {
      while true {
        let count = recv(connection, &buffer, buffer.count, 0)
        if count > 0 {
          received.append(contentsOf: buffer[0..<count])
          return true
        }
        if count < 0 && errno == EINTR { continue }
        return false
      }
    }
    var headEnd = received.range(of: separator)
    while headEnd == nil {
      guard receiveMore() else { return nil }
      headEnd = received.range(of: separator)
    }
    guard let headEnd, let head = String(data: received[..<headEnd.lowerBound], encoding: .utf8) else { return nil }
    let lines = head.components(separatedBy: "\r\n")
    let requestLine = lines[0].split(separator: " ")
    guard requestLine.count == 3 else { return nil }
    var headers: [String: String] = [:]
    for line in lines.dropFirst() {
      guard let colon = line.firstIndex(of: ":") else { continue }
      let name = line[..<colon].lowercased()
      headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    if headers["expect"]?.lowercased() == "100-continue" {
      write(Data("HTTP/1.1 100 Continue\r\n\r\n".utf8), to: connection)
    }
    let bodyLength = Int(headers["content-length"] ?? "") ?? 0
    while received.count - headEnd.upperBound < bodyLength {
      guard receiveMore() else { return nil }
    }
    let bodyStart = received.index(received.startIndex, offsetBy: headEnd.upperBound)
    let body = received[bodyStart..<received.index(bodyStart, offsetBy: bodyLength)]
    return Request(
      method: String(requestLine[0]), path: String(requestLine[1]), headers: headers, body: Data(body))
  }

  private func write(_ data: Data, to connection: Int32) {
    data.withUnsafeBytes { bytes in
      var offset = 0
      while offset < bytes.count {
        // MSG_NOSIGNAL: a client that has gone away must not kill the test process with SIGPIPE.
        let sent = send(connection, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
        if sent < 0 && errno == EINTR { continue }
        guard sent > 0 else { return }
        offset += sent
      }
    }
  }
}

extension URLSession {
  /// An ephemeral session that reaches the loopback server directly, with a serial delegate
  /// queue of its own; invalidate it when the test ends.
  ///
  /// On Linux, Foundation's URL loading runs on libcurl, which takes its proxy from the
  /// `http_proxy` variables and ignores `connectionProxyDictionary`; `no_proxy` keeps a proxy
  /// configured in the environment from sitting between a test and 127.0.0.1.
  public static func loopback() -> URLSession {
    _ = loopbackBypassesProxies
    let configuration = URLSessionConfiguration.ephemeral
    configuration.connectionProxyDictionary = [:]
    configuration.timeoutIntervalForRequest = 30
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    return URLSession(configuration: configuration, delegate: nil, delegateQueue: queue)
  }
}

/// Adds 127.0.0.1 to `no_proxy` once, before the first session, and only when a proxy is set:
/// changing the environment races with threads that read it.
private let loopbackBypassesProxies: Void = {
  let environment = ProcessInfo.processInfo.environment
  let proxies = ["http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"]
  guard proxies.contains(where: { environment[$0]?.isEmpty == false }) else { return }
  for name in ["no_proxy", "NO_PROXY"] {
    let existing = environment[name].map { $0.isEmpty ? "" : $0 + "," } ?? ""
    setenv(name, existing + "127.0.0.1,localhost", 1)
  }
}()

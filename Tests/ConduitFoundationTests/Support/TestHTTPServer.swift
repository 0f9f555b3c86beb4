import Foundation
import LoopbackHTTP
import Testing

/// The loopback HTTP server, with what tests watch and wait for: the requests it read, and the
/// connections its clients closed while it held them.
final class TestHTTPServer: Sendable {
  typealias Request = LoopbackHTTPServer.Request
  typealias Reply = LoopbackHTTPServer.Reply

  /// Every request the server has read, in the order they came.
  let requests: Recorder<Request>
  /// One entry each time a client closed a connection that the server was holding.
  let clientClosures: Recorder<Void>
  private let server: LoopbackHTTPServer

  var port: UInt16 { server.port }

  init(handler: @escaping @Sendable (_ request: Request, _ index: Int) -> Reply) throws {
    let requests = Recorder<Request>()
    let clientClosures = Recorder<Void>()
    server = try LoopbackHTTPServer(
      onRequest: { requests.record($0) }, onClientClose: { clientClosures.record() }, handler: handler)
    self.requests = requests
    self.clientClosures = clientClosures
  }

  func url(_ path: String = "/") -> URL { server.url(path) }

  /// Stops the server, recording a failure if its threads do not finish within `patience`.
  func stop(sourceLocation: SourceLocation = #_sourceLocation) {
    if !server.stop(patience: .seconds(10)) {
      Issue.record("the loopback server's threads did not finish within \(patience)", sourceLocation: sourceLocation)
    }
  }
}

// A stand-in for a Combine extension library (CombineExt declares the same method) built against
// Conduit: it declares its own `share(replay:)` on `Publisher` and calls it in its own code.
import Conduit

/// What this library's `share(replay:)` returns, so that a caller can tell whose method ran.
public struct ThirdPartyReplay<Upstream: Publisher>: Publisher {
  /// The kind of values published.
  public typealias Output = Upstream.Output
  /// The kind of errors published.
  public typealias Failure = Upstream.Failure

  /// The number of values the library would replay.
  public let count: Int
  let upstream: Upstream

  /// Subscribes the subscriber to the upstream publisher.
  public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
    upstream.subscribe(subscriber)
  }
}

extension Publisher {
  /// The library's own `share(replay:)`, with CombineExt's signature.
  public func share(replay count: Int = 1) -> ThirdPartyReplay<Self> {
    ThirdPartyReplay(count: count, upstream: self)
  }
}

/// A call site inside the library: it must resolve to the library's method.
public func sharedByTheLibrary<P: Publisher>(_ publisher: P, replay count: Int) -> ThirdPartyReplay<P> {
  publisher.share(replay: count)
}

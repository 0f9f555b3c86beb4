#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Starts POSIX threads of their own for the producers and churners that block between their
/// batches: a Dispatch worker or a task that blocks would take a thread from a pool that the
/// pipelines themselves need.
enum ProducerThread {
  /// What a new thread runs, carried through `pthread_create`'s context pointer.
  private final class Body {
    let run: @Sendable () -> Void

    init(_ run: @escaping @Sendable () -> Void) {
      self.run = run
    }
  }

  /// Runs `body` on a new detached thread.
  static func start(_ body: @escaping @Sendable () -> Void) {
    let context = Unmanaged.passRetained(Body(body)).toOpaque()
    #if canImport(Glibc)
      var thread = pthread_t()
      let result = pthread_create(
        &thread, nil,
        { context in
          Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
          return nil
        }, context)
      precondition(result == 0, "pthread_create failed: \(result)")
      pthread_detach(thread)
    #else
      var thread: pthread_t?
      let result = pthread_create(
        &thread, nil,
        { context in
          Unmanaged<Body>.fromOpaque(context).takeRetainedValue().run()
          return nil
        }, context)
      precondition(result == 0, "pthread_create failed: \(result)")
      pthread_detach(thread!)
    #endif
  }

  /// Blocks the calling thread for about `microseconds`.
  static func pause(microseconds: Int) {
    usleep(UInt32(microseconds))
  }
}

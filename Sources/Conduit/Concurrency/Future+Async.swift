extension Future where Output: Sendable {
  /// Creates a future fulfilled by an async function: its return value, or the error it throws.
  ///
  /// This is an extension to Combine, which builds futures only from a promise closure.
  ///
  /// Like every future, this one is eager: the initializer starts a task at once, which runs
  /// `operation` to completion whether or not anything subscribes, and runs it once however many
  /// subscribers and awaiters the future has. Nothing cancels that task, not even cancelling every
  /// subscription; for work that starts on subscription and stops on cancel, use ``AsyncFuture``.
  ///
  /// The task inherits the caller's priority (unless `priority` is given) and task-local values,
  /// but not its actor. `Output` must be `Sendable`: the value is made in that task and shared
  /// with every subscriber and awaiter, on whatever threads they run.
  ///
  /// ```swift
  /// let user = Future { try await api.fetchUser(id: 42) }
  /// let cancellable = user.sink(receiveCompletion: { print($0) }, receiveValue: { print($0) })
  /// ```
  ///
  /// - Parameters:
  ///   - priority: The priority of the task that runs `operation`.
  ///   - operation: The work whose result fulfils the future.
  public convenience init(
    priority: TaskPriority? = nil, _ operation: @escaping @Sendable () async throws(Failure) -> Output
  ) {
    self.init(priority: priority, fulfillingWith: operation)
  }

  /// What both public initializers do: with `Failure == Never` their signatures coincide, so the
  /// non-throwing one cannot name the throwing one and delegates here instead.
  convenience init(
    priority: TaskPriority?, fulfillingWith operation: @escaping @Sendable () async throws(Failure) -> Output
  ) {
    self.init { _ in }
    Task(priority: priority) { [self] in fulfil(await Result(awaiting: operation)) }
  }
}

extension Future where Failure == Never, Output: Sendable {
  /// Creates a future that never fails, fulfilled by the return value of an async function.
  ///
  /// This is an extension to Combine. As with every future, the work starts at once, in a task
  /// of its own, and runs once whatever subscribes, like the throwing `init(priority:_:)`.
  ///
  /// ```swift
  /// let thumbnail = Future { await renderer.thumbnail(for: photo) }
  /// let image = await thumbnail.value
  /// ```
  ///
  /// - Parameters:
  ///   - priority: The priority of the task that runs `operation`.
  ///   - operation: The work whose return value fulfils the future.
  public convenience init(priority: TaskPriority? = nil, _ operation: @escaping @Sendable () async -> Output) {
    self.init(priority: priority, fulfillingWith: operation)
  }
}

extension LeakCheckFailure {
  /// The place in the user's code that built a leaked pipeline: the call of `sink`, `assign`,
  /// `subscribe` or `values` that created its subscriber.
  ///
  /// A leak check finds it in a backtrace that it takes only while it runs, read through the
  /// test binary's debug information; without debug information a pipeline has no origin.
  ///
  /// This is an extension to Combine.
  ///
  /// ```swift
  /// for pipeline in failure.pipelines {
  ///     print(pipeline.origin?.fileName ?? "?", pipeline.origin?.line ?? 0)
  /// }
  /// ```
  public struct Origin: Hashable, Sendable, CustomStringConvertible {
    /// The source file's path, as the debug information records it.
    public let path: String
    /// The line of the call, counting from 1.
    public let line: Int

    /// The source file's name without its folders, such as `ModelTests.swift`.
    public var fileName: String {
      String(path.split(separator: "/").last ?? Substring(path))
    }

    /// The file's name and the line: `ModelTests.swift:42`.
    public var description: String { "\(fileName):\(line)" }
  }
}

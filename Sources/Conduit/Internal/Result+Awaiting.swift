extension Result {
  /// The result of awaiting `body`: what it returns, or the error it throws, with its type kept.
  ///
  /// The standard library's `Result(catching:)` takes only a synchronous body.
  init(awaiting body: () async throws(Failure) -> Success) async {
    do throws(Failure) {
      self = .success(try await body())
    } catch {
      self = .failure(error)
    }
  }
}

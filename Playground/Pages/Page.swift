import Dispatch

/// One page of the tour: a name to run it by, and the code it walks through.
struct Page: Sendable {
  let name: String
  let title: String
  let body: @Sendable () -> Void

  func present() {
    let heading = "\(name): \(title)"
    print(heading)
    print(String(repeating: "=", count: heading.count))
    body()
  }
}

/// Narration: what the next step does, and why.
func say(_ lines: String...) {
  print()
  for line in lines { print(line) }
}

/// A line the running code produced.
func show(_ text: String) {
  print("  | \(text)")
}

/// Runs `body` in a task and waits for it: the tour's pages are synchronous, the code some of them
/// show is not.
func runAndWait(_ body: @escaping @Sendable () async -> Void) {
  let done = DispatchSemaphore(value: 0)
  Task {
    await body()
    done.signal()
  }
  done.wait()
}

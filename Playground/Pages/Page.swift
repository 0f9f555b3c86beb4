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

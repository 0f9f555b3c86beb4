import Conduit

/// A text stream shared by the test's hooks and `print`, split into lines.
final class SharedStream: TextOutputStream, @unchecked Sendable {
  private var text = ""
  var lines: [String] { text.split(separator: "\n").map(String.init) }
  func write(_ string: String) { text += string }
  func clear() { text = "" }
}

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes a line to standard output at once: `print` buffers when the output is a pipe, and a CI
/// log should show each line of figures when it is made, not when the run ends.
func say(_ line: String) {
  var bytes = Array(line.utf8)
  bytes.append(UInt8(ascii: "\n"))
  var written = 0
  while written < bytes.count {
    let result = bytes[written...].withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
    if result <= 0 { return }
    written += result
  }
}

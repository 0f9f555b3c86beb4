#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What the kernel says about the process: its resident memory and its threads.
struct ProcessStatus {
  /// Resident bytes (`VmRSS`).
  var residentBytes: Int
  /// Threads, which a thread pool that keeps growing would show.
  var threads: Int

  /// What `MALLOC_ARENA_MAX` limits glibc's malloc arenas to, if it is set (`Scripts/soak` sets
  /// it): the figures of resident memory mean little without it.
  static var mallocArenaLimit: String? {
    getenv("MALLOC_ARENA_MAX").map { String(cString: $0) }
  }

  /// The figures from `/proc/self/status`; `nil` where there is no such file (not Linux), and
  /// then the soak skips its memory check.
  static func read() -> ProcessStatus? {
    #if os(Linux)
      guard let file = fopen("/proc/self/status", "r") else { return nil }
      defer { fclose(file) }
      var resident: Int?
      var threads: Int?
      var line = [CChar](repeating: 0, count: 256)
      while fgets(&line, Int32(line.count), file) != nil {
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // "VmRSS:\t   48212 kB", "Threads:\t17"
        let fields = text.split(whereSeparator: \.isWhitespace)
        guard fields.count >= 2, let number = Int(fields[1]) else { continue }
        if fields[0] == "VmRSS:" { resident = number * 1_024 }
        if fields[0] == "Threads:" { threads = number }
      }
      guard let resident, let threads else { return nil }
      return ProcessStatus(residentBytes: resident, threads: threads)
    #else
      return nil
    #endif
  }
}

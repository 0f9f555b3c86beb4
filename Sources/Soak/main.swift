// `swift run -c release Soak [MINUTES] [--seconds SECONDS]`, or `Scripts/soak [MINUTES]`.
//
// Runs a server-shaped load on Conduit for MINUTES (10 unless given; fractions allowed) or
// SECONDS, printing a line of figures a minute, then checks that no value was lost or repeated
// where a pipeline promises none, that the census is back at its starting count, and that
// resident memory stayed flat after the first minute. Exits 1 if any check fails.

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The run's length in seconds, from the command line.
func requestedSeconds() -> Double? {
  let arguments = Array(CommandLine.arguments.dropFirst())
  switch arguments.count {
  case 0: return 600
  case 1: return Double(arguments[0]).flatMap { $0 > 0 ? $0 * 60 : nil }
  case 2 where arguments[0] == "--seconds": return Double(arguments[1]).flatMap { $0 > 0 ? $0 : nil }
  default: return nil
  }
}

guard let seconds = requestedSeconds() else {
  say("usage: Soak [MINUTES] | Soak --seconds SECONDS   (10 minutes unless given)")
  exit(2)
}
exit(await SoakRun(seconds: seconds).run() ? 0 : 1)

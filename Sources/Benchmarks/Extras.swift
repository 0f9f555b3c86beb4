import Conduit
import Glibc

/// Measurements that are not a time per operation: memory per subscription and the cost of the
/// dormant census.
enum Extras {
  /// Resident memory, from `/proc/self/statm`; page-granular, so measure many objects at once.
  static func residentBytes() -> Int {
    guard let file = fopen("/proc/self/statm", "r") else { return 0 }
    defer { fclose(file) }
    var size = 0
    var resident = 0
    guard readTwoNumbers(file, &size, &resident) else { return 0 }
    return resident * Int(sysconf(Int32(_SC_PAGESIZE)))
  }

  /// Resident bytes per live `subject -> map -> sink` subscription, over 10,000 of them.
  static func memoryPerSubscription() -> Extra {
    let subject = PassthroughSubject<Int, Never>()
    let count = 10_000
    var cancellables: [AnyCancellable] = []
    cancellables.reserveCapacity(count)
    let before = residentBytes()
    for _ in 0..<count {
      cancellables.append(subject.map { $0 &+ 1 }.sink { blackHole($0) })
    }
    let after = residentBytes()
    blackHole(cancellables)
    let bytes = Double(after - before) / Double(count)
    return Extra(
      name: "bytes per live subject -> map -> sink subscription (10,000)", value: String(Int(bytes.rounded())))
  }

  /// What the census costs a subscribe/cancel while no leak check runs: the objects one
  /// subscription registers, times the cost of registering and leaving, against the whole
  /// subscribe/cancel.
  static func dormantCensusCost() -> Extra {
    let subject = PassthroughSubject<Int, Never>()
    let before = Census.liveObjects
    let probe = subject.map { $0 &+ 1 }.filter { $0 > 0 }.removeDuplicates().sink { blackHole($0) }
    let objectsPerSubscription = Census.liveObjects - before
    probe.cancel()

    let tokenCost = Benchmarks.measure(operations: 2_000_000) { count in
      for _ in 0..<count {
        let token = CensusToken(Extras.self)
        blackHole(token.scope)
      }
    }
    let subscribeCancel = Benchmarks.measure(operations: 200_000) { count in
      for _ in 0..<count {
        let cancellable = subject.map { $0 &+ 1 }.filter { $0 > 0 }.removeDuplicates().sink { blackHole($0) }
        cancellable.cancel()
      }
    }
    let share = tokenCost * Double(objectsPerSubscription) / subscribeCancel * 100
    return Extra(
      name: "dormant census share of subscribe + cancel (\(objectsPerSubscription) objects)",
      value: String(format1(share)) + " %")
  }
}

func format1(_ value: Double) -> String {
  let scaled = (value * 10).rounded() / 10
  return String(scaled)
}

/// Reads the first two numbers of `/proc/self/statm`.
private func readTwoNumbers(_ file: UnsafeMutablePointer<FILE>, _ first: inout Int, _ second: inout Int) -> Bool {
  var buffer = [CChar](repeating: 0, count: 256)
  guard fgets(&buffer, Int32(buffer.count), file) != nil else { return false }
  let fields = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    .split(separator: " ")
  guard fields.count >= 2, let a = Int(fields[0]), let b = Int(fields[1]) else { return false }
  first = a
  second = b
  return true
}

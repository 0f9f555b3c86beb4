import Conduit

/// `@Published` and `ObservableObject` (issue 20), against `baseline.LockedCall`.
enum PublishedWorkloads {
  final class Model: ObservableObject {
    @Published var first = 0
    @Published var second = 0
    @Published var third = ""
    @Published var fourth = 0.0
    @Published var fifth = false
  }

  nonisolated(unsafe) static let all: [Workload] = [
    Workload("@Published set, one $property sink, per set", baseline: "baseline.LockedCall", target: 5) {
      let model = Model()
      let cancellable = model.$first.sink { blackHole($0) }
      defer { cancellable.cancel() }
      return measure(operations: 1_000_000) { count in
        for value in 0..<count { model.first = value }
      }
    },
    Workload(
      "@Published set, one $property sink and one objectWillChange sink, per set", baseline: "baseline.LockedCall",
      target: 8
    ) {
      let model = Model()
      let values = model.$first.sink { blackHole($0) }
      let announcements = model.objectWillChange.sink { blackHole(0) }
      defer {
        values.cancel()
        announcements.cancel()
      }
      return measure(operations: 1_000_000) { count in
        for value in 0..<count { model.first = value }
      }
    },
    Workload(
      "objectWillChange read, object with five @Published properties, per read", baseline: "baseline.LockedCall",
      target: 2
    ) {
      let model = Model()
      _ = model.objectWillChange
      return measure(operations: 2_000_000) { count in
        for _ in 0..<count { blackHole(model.objectWillChange) }
      }
    },
  ]
}

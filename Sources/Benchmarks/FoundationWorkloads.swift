import ConduitFoundation
import Foundation

/// ConduitFoundation's publishers against Foundation called by hand.
enum FoundationWorkloads {
  static let observerBlockName = "baseline.NotificationCenter block observer, per post"
  static let decodeByHandName = "baseline.JSONDecoder.decode by hand, small value"

  nonisolated(unsafe) static let baselines: [Baseline] = [
    Baseline(name: observerBlockName, measure: postToBlockObserver),
    Baseline(name: decodeByHandName, measure: decodeByHand),
  ]

  nonisolated(unsafe) static let all: [Workload] = [
    Workload(
      "NotificationCenter.post, 1 publisher subscriber, per post", baseline: observerBlockName, target: 1.5,
      note: "a sink on center.publisher(for:), unlimited demand"
    ) { postToPublisher() },
    Workload(
      "decode(type:decoder:) of a small JSON value, per value", baseline: decodeByHandName, target: 1.1,
      note: "PassthroughSubject<Data, Never> → decode → sink; the same decoder reused, as by hand"
    ) { decodeInPipeline() },
  ]

  private static let name = Notification.Name("Benchmarks.FoundationWorkloads")

  static func postToBlockObserver() -> Double {
    let center = NotificationCenter()
    let observer = center.addObserver(forName: name, object: nil, queue: nil) { blackHole($0) }
    defer { center.removeObserver(observer) }
    return measure(operations: 200_000) { count in
      for _ in 0..<count { center.post(name: name, object: nil) }
    }
  }

  static func postToPublisher() -> Double {
    let center = NotificationCenter()
    let token = center.publisher(for: name).sink { blackHole($0) }
    defer { token.cancel() }
    return measure(operations: 200_000) { count in
      for _ in 0..<count { center.post(name: name, object: nil) }
    }
  }

  private struct Reading: Decodable {
    let sensor: String
    let value: Double
    let tags: [String]
  }

  private static let reading = Data(#"{"sensor":"north-7","value":21.5,"tags":["roof","hourly"]}"#.utf8)

  static func decodeByHand() -> Double {
    let decoder = JSONDecoder()
    let data = opaque(reading)
    return measure(operations: 50_000) { count in
      for _ in 0..<count {
        do { blackHole(try decoder.decode(Reading.self, from: data)) } catch { fatalError("\(error)") }
      }
    }
  }

  static func decodeInPipeline() -> Double {
    let subject = PassthroughSubject<Data, Never>()
    let token = subject.decode(type: Reading.self, decoder: JSONDecoder())
      .sink(
        receiveCompletion: { if case .failure(let error) = $0 { fatalError("\(error)") } },
        receiveValue: { blackHole($0) })
    defer { token.cancel() }
    let data = opaque(reading)
    return measure(operations: 50_000) { count in
      for _ in 0..<count { subject.send(data) }
    }
  }
}

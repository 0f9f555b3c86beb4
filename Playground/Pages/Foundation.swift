import ConduitFoundation
import Dispatch
import Foundation
import LoopbackHTTP
import Synchronization

/// The weather the page's local server reports, decoded from its JSON.
private struct Forecast: Decodable {
  let city: String
  let temperature: Double
  let conditions: [String]
}

extension Page {
  static let foundation = Page(name: "foundation", title: "URLSession, Timer and NotificationCenter as publishers") {
    say(
      "ConduitFoundation holds what Combine's users find in Foundation: URLSession's data task",
      "publisher, Timer.publish, NotificationCenter's publisher, RunLoop and OperationQueue as",
      "schedulers, JSONDecoder for decode(type:decoder:). `import ConduitFoundation` brings",
      "Conduit with it; Conduit alone stays free of Foundation.")

    say(
      "The page starts a small HTTP server on 127.0.0.1. It drops the connection of the first two",
      "requests, and answers the third with a forecast in JSON.")
    let attempts = Atomic<Int>(0)
    guard
      let server = try? LoopbackHTTPServer(handler: { _, index in
        index < 2
          ? .closeWithoutResponding
          : .json(#"{"city":"Tromsø","temperature":-3.5,"conditions":["snow","wind"]}"#)
      })
    else {
      show("could not start the local server; the rest of the page goes on without it")
      return
    }
    let session = URLSession.loopback()

    say(
      "dataTaskPublisher(for:) starts its request when the subscriber first asks for a value.",
      "retry(2) subscribes again after each failure, which starts a new request, so the third",
      "request's answer arrives; map and decode turn its body into a Forecast.")
    let fetched = DispatchSemaphore(value: 0)
    let fetch = session.dataTaskPublisher(for: server.url("/forecast"))
      .handleEvents(
        receiveSubscription: { _ in attempts.add(1, ordering: .relaxed) },
        receiveCompletion: { completion in
          if case .failure(let error) = completion { show("attempt failed: URLError \(error.code.rawValue)") }
        }
      )
      .retry(2)
      .map(\.data)
      .decode(type: Forecast.self, decoder: JSONDecoder())
      .sink(
        receiveCompletion: { completion in
          show("completion: \(completion)")
          fetched.signal()
        },
        receiveValue: { forecast in
          show("\(forecast.city): \(forecast.temperature) °C, \(forecast.conditions.joined(separator: " and "))")
        })
    fetched.wait()
    show("attempts made: \(attempts.load(ordering: .relaxed))")
    fetch.cancel()
    session.finishTasksAndInvalidate()
    server.stop()

    say(
      "Timer.publish is a connectable publisher of dates; autoconnect() starts its timer with the",
      "first subscriber. It ticks on the run loop it is given, here RunLoop.main, which the page",
      "runs (as an app's main thread does) until prefix(3) has taken three ticks and cancelled",
      "the timer.")
    let ticks = Mutex<[Bool]>([])
    let finished = Atomic<Bool>(false)
    let timer = Timer.publish(every: 0.05, on: .main, in: .default)
      .autoconnect()
      .prefix(3)
      .sink(
        receiveCompletion: { _ in finished.store(true, ordering: .relaxed) },
        receiveValue: { _ in ticks.withLock { $0.append(Thread.isMainThread) } })
    while !finished.load(ordering: .relaxed) {
      _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.05))
    }
    let onTheMainThread = ticks.withLock { $0 }
    show("\(onTheMainThread.count) ticks, each on the main thread: \(onTheMainThread.allSatisfy { $0 })")
    timer.cancel()

    say(
      "NotificationCenter's publisher adds one observer for its subscriber, and removes it when",
      "the subscriber cancels. The object filter keeps only what one thermostat posts.")
    let changed = Notification.Name("ThermostatChanged")
    final class Thermostat: Sendable {}
    let hall = Thermostat()
    let attic = Thermostat()
    let center = NotificationCenter()
    let readings = center.publisher(for: changed, object: hall)
      .compactMap { $0.userInfo?["celsius"] as? Double }
      .sink { show("the hall is at \($0) °C") }
    center.post(name: changed, object: hall, userInfo: ["celsius": 19.5])
    center.post(name: changed, object: attic, userInfo: ["celsius": 12.0])
    center.post(name: changed, object: hall, userInfo: ["celsius": 20.0])
    readings.cancel()
    center.post(name: changed, object: hall, userInfo: ["celsius": 21.0])
    show("posted 21.0 after the cancel: nothing arrived, the observer is gone")
  }
}

import Conduit

/// An actor that consumes a subject: the sequence is made in `start`, so it is subscribed before
/// `start` returns, and the loop runs on the actor, so it uses the actor's state directly.
private actor OrderBook {
  private var orders: [String: [Int]] = [:]
  private var loop: Task<Void, Never>?

  func start(_ incoming: PassthroughSubject<(desk: String, order: Int), Never>) {
    let values = incoming.values(bufferingPolicy: .unbounded)
    loop = Task {
      for await (desk, order) in values { orders[desk, default: []].append(order) }
    }
  }

  /// What the loop recorded, once the subject finished.
  func finished() async -> [String: [Int]] {
    await loop?.value
    return orders
  }
}

extension Page {
  static let actors = Page(name: "actors", title: "an actor consumes a publisher, losing nothing") {
    say(
      "An actor's state may be touched only on the actor. A sink in an actor would run on",
      "whatever thread sends, and Swift stops the process there rather than let it race.",
      "Instead the actor makes `values(bufferingPolicy:)` in a method: it subscribes at once,",
      "and a task started there loops over it on the actor.")
    runAndWait {
      let incoming = PassthroughSubject<(desk: String, order: Int), Never>()
      let book = OrderBook()
      await book.start(incoming)
      show("start returned; three desks now send 5 orders each, at once, from tasks of their own")
      await withTaskGroup(of: Void.self) { group in
        for desk in ["London", "New York", "Tokyo"] {
          group.addTask { for order in 1...5 { incoming.send((desk, order)) } }
        }
      }
      incoming.send(completion: .finished)
      let orders = await book.finished()
      for desk in orders.keys.sorted() {
        show("\(desk): \(orders[desk] ?? [])")
      }
      let total = orders.values.map(\.count).reduce(0, +)
      show("\(total) of 15 orders recorded, each desk's in the order it sent them")
    }
    say(
      "Had the task called `incoming.values` itself, what the desks sent before it first ran",
      "would be lost: plain `values` subscribes when the loop starts, as in Combine.")
  }
}

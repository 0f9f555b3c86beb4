import Conduit
import Dispatch
import Synchronization

/// A stand-in for a network call: the price of a stock, after a pause.
private func fetchPrice(_ symbol: String) async -> Int {
  await Task.yield()
  return symbol == "ACME" ? 120 : 80
}

extension Page {
  static let bridging = Page(name: "bridging", title: "publishers and async/await, both ways") {
    say(
      "From Combine to async/await: `values` turns any publisher into an AsyncSequence, so a",
      "pipeline is consumed with for await. Each next() asks the publisher for one element.")
    runAndWait {
      for await price in [100, 101, 99].publisher.map({ $0 * 2 }).values {
        show("for await got \(price)")
      }
      show("the loop ended when the publisher finished")
    }

    say(
      "From async/await to Combine: Future takes an async closure (beyond Combine). Two calls,",
      "each a publisher, zipped, and consumed again with for await.")
    runAndWait {
      let acme = Future { await fetchPrice("ACME") }
      let globex = Future { await fetchPrice("GLOBEX") }
      for await (first, second) in acme.zip(globex).values {
        show("ACME \(first), GLOBEX \(second): together \(first + second)")
      }
    }

    say(
      "Any AsyncSequence is a publisher too (`.publisher`, beyond Combine), so an AsyncStream of",
      "keystrokes goes through debounce: a burst of typing becomes one search.")
    runAndWait {
      let (keystrokes, typing) = AsyncStream.makeStream(of: String.self)
      let queue = DispatchQueue(label: "conduit.playground.bridging")
      var searches = keystrokes.publisher
        .debounce(for: .milliseconds(100), scheduler: queue)
        .values.makeAsyncIterator()
      for text in ["c", "co", "con", "cond", "condu", "condui", "conduit"] {
        show("typed \"\(text)\"")
        typing.yield(text)
      }
      if let query = await searches.next() { show("searched for \"\(query)\", once") }
      typing.finish()
    }

    say(
      "The pitfall: `values` asks for one element at a time, so a hot subject's elements that",
      "arrive while the loop body runs are dropped, as in Combine. The buffered form keeps them.")
    runAndWait {
      let subject = PassthroughSubject<Int, Never>()
      var plain = subject.values.makeAsyncIterator()
      var buffered = subject.values(bufferingPolicy: .unbounded).makeAsyncIterator()
      // Neither loop is waiting in next() while these arrive: both are busy in their bodies.
      for value in 1...3 { subject.send(value) }
      subject.send(completion: .finished)
      var fromPlain: [Int] = []
      while let value = await plain.next() { fromPlain.append(value) }
      var fromBuffered: [Int] = []
      while let value = await buffered.next() { fromBuffered.append(value) }
      show("values:                             \(fromPlain)")
      show("values(bufferingPolicy: .unbounded): \(fromBuffered)")
    }
  }
}

import Conduit
import ConduitTesting
import Testing

/// The examples of the article "Getting started" (Sources/Conduit/Conduit.docc/GettingStarted.md),
/// run as they are written there: when this test changes, change the article too.
@Suite(.leakChecked)
struct GettingStartedArticleTests {
  /// The article's "Build a first pipeline" example.
  @Test func aFirstPipeline() {
    var cancellables = Set<AnyCancellable>()

    // Any sequence is a publisher: one value per element, then `.finished`.
    var scaled: [Int] = []
    [1, 2, 3].publisher
      .map { $0 * 10 }
      .sink { scaled.append($0) }
      .store(in: &cancellables)
    #expect(scaled == [10, 20, 30])

    // A subject: values are sent to it by hand, and it passes them to its subscribers.
    let temperatures = PassthroughSubject<Double, Never>()
    var warnings: [String] = []
    temperatures
      .filter { $0 > 25 }
      .map { "too hot: \($0)°" }
      .removeDuplicates()
      .sink { warnings.append($0) }
      .store(in: &cancellables)
    temperatures.send(21)
    temperatures.send(27)
    temperatures.send(27)
    temperatures.send(30)
    #expect(warnings == ["too hot: 27.0°", "too hot: 30.0°"])

    // A CurrentValueSubject holds a value: a new subscriber receives it at once.
    let setpoint = CurrentValueSubject<Double, Never>(20)
    var setpoints: [Double] = []
    setpoint
      .sink { setpoints.append($0) }
      .store(in: &cancellables)
    setpoint.value = 22.5
    #expect(setpoints == [20.0, 22.5])

    // Cancelling ends every subscription; nothing more arrives.
    cancellables.removeAll()
    temperatures.send(35)
    #expect(warnings == ["too hot: 27.0°", "too hot: 30.0°"])
  }

  /// The article's paragraph on demand: a subscriber that asks for one value at a time slows a
  /// sequence to its pace, and a subject drops what a subscriber has not asked for.
  @Test func demandIsBackPressure() {
    let paced = TestSubscriber<Int, Never>(initialDemand: .max(1))
    [1, 2, 3].publisher.subscribe(paced)
    #expect(paced.values == [1])
    paced.request(.max(1))
    #expect(paced.values == [1, 2])
    paced.cancel()

    let subject = PassthroughSubject<Int, Never>()
    let slow = TestSubscriber<Int, Never>(initialDemand: .max(1))
    subject.subscribe(slow)
    subject.send(1)
    subject.send(2)
    slow.request(.max(1))
    #expect(slow.values == [1])
    slow.cancel()
  }
}

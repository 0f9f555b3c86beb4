import Conduit
import ConduitTesting
import Testing

@Suite(.leakChecked)
struct LeakCheckFailureTests {
  final class Model {
    var cancellable: AnyCancellable?
  }

  static let fileID = "ConduitTestingTests/LeakCheckFailureTests.swift"
  static let fileName = "LeakCheckFailureTests.swift"

  @Test func describesEverySurvivorWithWhereItWasTracked() {
    let subject = PassthroughSubject<Int, Never>()
    weak var escaped: Model?
    var trackedLine = 0
    var sinkLine = 0
    let failure = failedLeakCheck { tracker in
      let (model, line) = (tracker.track(Model()), #line)
      trackedLine = line
      escaped = model
      (model.cancellable, sinkLine) = (subject.sink { _ in _ = model }, #line)
    }
    #expect(
      failure?.description == """
        3 object(s) outlived the leak check:
          - ConduitTestingTests.LeakCheckFailureTests.Model (tracked at \(Self.fileID):\(trackedLine))
          - SubjectDownstream<Subscribers.Sink<Int, Never>>
          - Subscribers.Sink<Int, Never>
        1 pipeline leaked: Sink<Int, Never> ← PassthroughSubject, subscribed at \(Self.fileName):\(sinkLine)
        """)
    escaped?.cancellable = nil
    #expect(escaped == nil)
  }

  @Test func groupsIdenticalSurvivorsWithACount() {
    let subject = PassthroughSubject<String, Never>()
    var kept: [AnyCancellable] = []
    var lines: [Int] = []
    let failure = failedLeakCheck { _ in
      for _ in 1...3 { kept.append(subject.sink { _ in }) }
      lines.append(#line - 1)
      kept.append(Future<Int, Never> { _ in }.sink { _ in })
      lines.append(#line - 1)
    }
    #expect(failure?.survivors.count == 8)
    #expect(
      failure?.description == """
        8 object(s) outlived the leak check:
          - FutureConduit<Subscribers.Sink<Int, Never>>
          - 3 × SubjectDownstream<Subscribers.Sink<String, Never>>
          - Subscribers.Sink<Int, Never>
          - 3 × Subscribers.Sink<String, Never>
        3 pipelines leaked: Sink<String, Never> ← PassthroughSubject, subscribed at \(Self.fileName):\(lines[0])
        1 pipeline leaked: Sink<Int, Never> ← Future, subscribed at \(Self.fileName):\(lines[1])
        """)
    kept.removeAll()
  }

  @Test func describesGrowthWithWhatWasMeasured() {
    let subject = PassthroughSubject<Int, Never>()
    var kept: [AnyCancellable] = []
    var sinkLine = 0
    let failure = failedGrowthCheck(iterations: 4) { _ in
      kept.append(subject.sink { _ in }); sinkLine = #line
    }
    #expect(failure?.growth == "4 alive after iteration 2, 8 after iteration 4")
    #expect(
      failure?.description == """
        Live objects grew with the iterations: 4 alive after iteration 2, 8 after iteration 4.
        Still alive at the end:
          - 4 × SubjectDownstream<Subscribers.Sink<Int, Never>>
          - 4 × Subscribers.Sink<Int, Never>
        4 pipelines leaked: Sink<Int, Never> ← PassthroughSubject, subscribed at \(Self.fileName):\(sinkLine)
        """)
    kept.removeAll()
  }

  @Test func survivorDescribesItselfByTypeAndPlace() {
    let subject = PassthroughSubject<Int, Never>()
    var kept: AnyCancellable?
    let failure = #expect(throws: LeakCheckFailure.self) {
      try withLeakCheck(timeout: .milliseconds(20)) { tracker in
        let model = tracker.track(Model(), fileID: "App/Model.swift", line: 12)
        kept = subject.sink { _ in _ = model }
      }
    }
    let survivors = failure?.survivors ?? []
    #expect(survivors.count == 3)
    #expect(
      survivors.first?.description == "ConduitTestingTests.LeakCheckFailureTests.Model (tracked at App/Model.swift:12)")
    #expect(survivors.last?.description == "Subscribers.Sink<Int, Never>")
    #expect(survivors.last?.fileID == nil)
    #expect(survivors.last?.line == nil)
    #expect(kept != nil)
    kept = nil
  }

  @Test func survivorsWithTheSameTypeAndPlaceAreEqual() {
    let subject = PassthroughSubject<Int, Never>()
    var kept: [AnyCancellable] = []
    let failure = #expect(throws: LeakCheckFailure.self) {
      try withLeakCheck(timeout: .milliseconds(20)) { _ in
        kept = [subject.sink { _ in }, subject.sink { _ in }]
      }
    }
    let survivors = failure?.survivors ?? []
    #expect(survivors.count == 4)
    #expect(Set(survivors).count == 2)
    kept.removeAll()
  }
}

import Conduit
import ConduitTesting
import Dispatch
import Observation
import Testing

/// The article's `@Observable` model.
@Observable
private final class Editor {
  var text = ""
}

/// The examples of the article "Observable models"
/// (Sources/Conduit/Conduit.docc/ObservableModels.md), run as they are written there: when this
/// test changes, change the article too.
@Suite(.leakChecked)
struct ObservableModelsArticleTests {
  /// The article's `ObservableObject`.
  final class Thermostat: ObservableObject {
    @Published var target = 20.0
    @Published private(set) var display = ""

    init() {
      $target
        .map { "\($0)°" }
        .assign(to: &$display)
    }
  }

  /// "Published properties": `$target`, `objectWillChange`, and `assign(to: &$display)`.
  @Test func publishedPropertiesAndObjectWillChange() {
    let thermostat = Thermostat()
    var targets: [Double] = []
    var announcements = 0
    let targetChanges = thermostat.$target.sink { targets.append($0) }
    let objectChanges = thermostat.objectWillChange.sink { announcements += 1 }

    thermostat.target = 21.5
    #expect(targets == [20.0, 21.5])
    #expect(thermostat.display == "21.5°")
    #expect(announcements == 2)  // one for target, one for display

    targetChanges.cancel()
    objectChanges.cancel()
  }

  /// `assign(to: &$display)` holds no reference to the thermostat: it goes with its last
  /// reference, and its pipeline with it.
  @Test func assignToAPublishedPropertyMakesNoCycle() throws {
    try withLeakCheck { tracker in
      let thermostat = tracker.track(Thermostat())
      thermostat.target = 18
      #expect(thermostat.display == "18.0°")
    }
  }

  /// "Changes of an @Observable model": a debounced autosave, in virtual time.
  @Test func changesOfAnObservableModel() {
    let scheduler = DispatchQueue.test
    let editor = Editor()
    var saved: [String] = []
    let autosave = editor.changes(on: scheduler) { $0.text }
      .dropFirst()  // not the text it starts with
      .debounce(for: .seconds(1), scheduler: scheduler)  // one save when typing pauses
      .sink { saved.append($0) }
    scheduler.advance()  // the first read, on the scheduler

    for text in ["H", "He", "Hello"] {
      editor.text = text
      scheduler.advance(by: .milliseconds(300))  // a keystroke every 0.3 seconds
    }
    #expect(saved.isEmpty)  // typing has not paused for a second yet
    scheduler.advance(by: .seconds(1))
    #expect(saved == ["Hello"])

    autosave.cancel()
  }
}

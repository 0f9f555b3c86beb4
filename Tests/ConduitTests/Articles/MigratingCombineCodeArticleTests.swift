import Conduit
import ConduitTesting
import Testing

/// The examples of the article "Migrating Combine code"
/// (Sources/Conduit/Conduit.docc/MigratingCombineCode.md), run as they are written there: when
/// this test changes, change the article too.
@Suite(.leakChecked)
struct MigratingCombineCodeArticleTests {
  /// The article's model, written for Combine, with only the import changed.
  final class SignUpModel: ObservableObject {
    @Published var username = ""
    @Published var password = ""
    @Published private(set) var canSubmit = false

    init() {
      $username.combineLatest($password)
        .map { username, password in !username.isEmpty && password.count >= 8 }
        .removeDuplicates()
        .assign(to: &$canSubmit)
    }
  }

  /// The article's "Change the import" example.
  @Test func combineCodeCompilesWithTheImportChanged() {
    let model = SignUpModel()
    #expect(!model.canSubmit)
    model.username = "ada"
    #expect(!model.canSubmit)
    model.password = "analytical"
    #expect(model.canSubmit)
  }

  /// The model and everything its pipeline allocated go with the model's last reference: the
  /// pipeline from its own `$username` and `$password` into its own `$canSubmit` makes no cycle.
  @Test func theModelFreesItsPipeline() throws {
    try withLeakCheck { tracker in
      let model = tracker.track(SignUpModel())
      model.username = "ada"
      model.password = "analytical"
      #expect(model.canSubmit)
    }
  }

  /// `objectWillChange` announces each change of a `@Published` property, `canSubmit` included.
  @Test func everyPublishedChangeIsAnnounced() {
    let model = SignUpModel()
    var announcements = 0
    let cancellable = model.objectWillChange.sink { announcements += 1 }
    model.username = "ada"
    model.password = "analytical"
    // username, password, and canSubmit going from false to true.
    #expect(announcements == 3)
    cancellable.cancel()
  }
}

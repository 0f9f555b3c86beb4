import Conduit
import ConduitTesting
import Dispatch
import Observation

/// A view model with two published properties.
private final class CartModel: ObservableObject {
  @Published var items: [String] = []
  @Published var total = 0
}

/// A settings object that holds another observable object.
private final class AccountModel: ObservableObject {
  @Published var name = "Ada"
  let preferences = PreferencesModel()
}

/// The fix for the nested-object trap: the holder forwards its child's announcements.
private final class ForwardingAccountModel: ObservableObject {
  @Published var name = "Ada"
  let preferences = PreferencesModel()
  private var forwarding: AnyCancellable?

  init() {
    forwarding = preferences.objectWillChange.sink { [weak self] in self?.objectWillChange.send() }
  }
}

private final class PreferencesModel: ObservableObject {
  @Published var darkMode = false
}

/// A model fed by a stream of readings, with no token to keep.
private final class GaugeModel: ObservableObject {
  @Published var reading = 0

  init(readings: PassthroughSubject<Int, Never>) {
    readings.assign(to: &$reading)
  }
}

/// A document edited through an `@Observable` model, the Observation framework's kind.
@Observable
private final class DocumentEditor {
  var text = ""
}

extension Page {
  static let observableModels = Page(name: "observable-models", title: "@Published and ObservableObject") {
    say("$property is a publisher of the property's values: the current one first, then each change.")
    let cart = CartModel()
    let totals = cart.$total.sink { show("$total sent \($0)") }
    cart.total = 12

    say(
      "The pitfall: the value is published in willSet. A subscriber that reads the property reads the",
      "old value; use the value it receives instead.")
    let pitfall = cart.$total.dropFirst().sink { received in
      show("received \(received), but cart.total still reads \(cart.total)")
    }
    cart.total = 30
    pitfall.cancel()
    totals.cancel()

    say("objectWillChange fires before any @Published property of the object changes.")
    let announcements = cart.objectWillChange.sink { show("cart will change (items: \(cart.items))") }
    cart.items.append("tea")
    cart.total = 4
    announcements.cancel()

    say("The nested-object trap: an object does not announce the changes of the objects it holds.")
    let account = AccountModel()
    let silent = account.objectWillChange.sink { show("account will change") }
    account.preferences.darkMode = true
    show("after preferences.darkMode = true, the account said nothing")
    silent.cancel()

    say("The fix: forward the child's objectWillChange to the parent's, holding the parent weakly.")
    let forwarding = ForwardingAccountModel()
    let heard = forwarding.objectWillChange.sink { show("account will change") }
    forwarding.preferences.darkMode = true
    heard.cancel()

    say(
      "assign(to: &$property) feeds a publisher into a property. It returns no token: the subscription",
      "lives as long as the property, and holds no reference to the object, so it makes no cycle.")
    let readings = PassthroughSubject<Int, Never>()
    weak var released: GaugeModel?
    do {
      let gauge = GaugeModel(readings: readings)
      released = gauge
      readings.send(7)
      show("gauge.reading is \(gauge.reading)")
    }
    show("the gauge was freed with its last reference: \(released == nil)")

    say(
      "Beyond Combine, @Published may be set from several threads at once: every subscriber sees the",
      "values in one order, and the property ends with the value delivered last.")

    say(
      "Beyond Combine, an @Observable model's changes as a publisher: changes(on:) reads the closure",
      "on the scheduler after each change. A debounced auto-save, driven here by a TestScheduler:")
    let scheduler = DispatchQueue.test
    let editor = DocumentEditor()
    let autoSave = editor.changes(on: scheduler) { $0.text }
      .dropFirst()
      .debounce(for: .seconds(1), scheduler: scheduler)
      .sink { show("saved \"\($0)\"") }
    for word in ["H", "He", "Hello"] {
      editor.text = word
      scheduler.advance(by: .milliseconds(300))
    }
    show("typed \"Hello\" within a second: nothing saved yet")
    scheduler.advance(by: .seconds(1))
    autoSave.cancel()
  }
}

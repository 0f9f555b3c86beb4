import Conduit

extension Page {
  static let subjects = Page(name: "subjects", title: "PassthroughSubject and CurrentValueSubject") {
    say("A subject is a publisher you push values into with send(_:), shared by all its subscribers.")

    say("PassthroughSubject keeps no value: a subscriber sees only what is sent after it arrives.")
    let passthrough = PassthroughSubject<String, Never>()
    passthrough.send("sent before anyone listened")
    let early = passthrough.sink { show("early subscriber got \"\($0)\"") }
    passthrough.send("hello")
    let late = passthrough.sink { show("late subscriber got \"\($0)\"") }
    passthrough.send("world")

    say(
      "CurrentValueSubject holds a value: a new subscriber gets it at once, and assigning",
      ".value sends the new one.")
    let temperature = CurrentValueSubject<Int, Never>(20)
    let display = temperature.sink { show("display shows \($0)°") }
    temperature.value = 21
    temperature.send(22)
    show("temperature.value is \(temperature.value)")

    say("A completion ends a subject for good. Later sends are ignored: silence, not an error.")
    passthrough.send(completion: .finished)
    passthrough.send("anyone there?")
    show("(nothing: the send after completion went nowhere)")

    say("A subscriber arriving after the completion receives the completion at once, and no value.")
    let afterwards = passthrough.sink(
      receiveCompletion: { show("new subscriber got completion: \($0)") },
      receiveValue: { show("new subscriber got \"\($0)\"") })

    say("A completed CurrentValueSubject still stores assignments to .value but sends nothing.")
    temperature.send(completion: .finished)
    temperature.value = 30
    show("temperature.value is \(temperature.value), and the display stayed silent")

    for token in [early, late, display, afterwards] { token.cancel() }
  }
}

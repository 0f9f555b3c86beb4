// The Conduit playground: a guided tour, one page per topic.
//
//   swift run Playground            every page, in order
//   swift run Playground --list     the page names
//   swift run Playground NAME       one page

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

let pages: [Page] = [
  .basics,
  .demand,
  .subjects,
  .cancellation,
  .futureVersusDeferred,
  .leaks,
  .transformAndFilter,
  .combining,
  .flattening,
  .errors,
  .coldVersusHot,
  .searchAsYouType,
  .throttling,
  .timeouts,
  .marbles,
  .receiveOn,
  .bridging,
  .actors,
  .observableModels,
  .foundation,
]

func printList() {
  let width = pages.map(\.name.count).max() ?? 0
  for page in pages {
    let padding = String(repeating: " ", count: width - page.name.count)
    print("\(page.name)\(padding)  \(page.title)")
  }
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case nil:
  for (index, page) in pages.enumerated() {
    if index > 0 { print() }
    page.present()
  }
case "--list", "-l":
  printList()
case "--help", "-h":
  print("usage: swift run Playground [--list | PAGE]")
  printList()
case let name?:
  if let page = pages.first(where: { $0.name == name }) {
    page.present()
  } else {
    print("Unknown page '\(name)'. The pages are:")
    printList()
    exit(1)
  }
}

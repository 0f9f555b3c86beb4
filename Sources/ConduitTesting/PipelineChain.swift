/// Names the objects of one leaked pipeline as the operators a user wrote, downstream first:
/// `Sink<Int, Never> ← Map ← PassthroughSubject`.
///
/// The names come from the objects' types. An operator's inner object is generic over its
/// downstream, so an object's type spells the operators that Conduit fuses into it (a `map`
/// after a subject lives in the subject's per-subscriber object) down to the next object of the
/// pipeline; each object adds those, upstream last.
enum PipelineChain {
  /// One object of the pipeline: its readable type name, and the name it asked to be shown by.
  struct Object {
    let typeName: String
    let name: String?
  }

  /// The operator names of `objects`, given in the order they were created (downstream first).
  static func names(of objects: [Object]) -> [String] {
    var names: [String] = []
    var earlier: Set<String> = []
    for object in objects {
      let type = TypeName(parsing: object.typeName)
      let stages = type.stages(downTo: earlier)
      var added: [String] = []
      for (depth, stage) in stages.enumerated() {
        let label: String?
        if depth == 0, let name = object.name {
          label = TypeName(parsing: name).bareName
        } else {
          label = depth == 0 && names.isEmpty ? stage.subscriberLabel : stage.label
        }
        if let label { added.append(label) }
      }
      names.append(contentsOf: added.reversed())
      earlier.insert(type.text)
    }
    return names
  }
}

/// A type name parsed into its parts: `Publishers.TryMap<Upstream, Int>.Step` has the name
/// `Publishers.TryMap.Step` and the arguments `Upstream` and `Int`.
struct TypeName {
  /// The dotted name without generic arguments.
  var name = ""
  /// The generic arguments of every part, in order.
  var arguments: [TypeName] = []
  /// The name as written.
  var text = ""

  init(parsing text: String) {
    var characters = Substring(text)
    self.init(parsing: &characters)
  }

  private init(parsing rest: inout Substring) {
    let start = rest.startIndex
    while let next = rest.first {
      if next == "<" || next == "(" {
        let close: Character = next == "<" ? ">" : ")"
        rest.removeFirst()
        while let argumentStart = rest.first, argumentStart != close {
          if argumentStart == "," || argumentStart == " " {
            rest.removeFirst()
            continue
          }
          arguments.append(TypeName(parsing: &rest))
        }
        if !rest.isEmpty { rest.removeFirst() }
      } else if next == "," || next == ">" || next == ")" || next == " " {
        break
      } else {
        name.append(next)
        rest.removeFirst()
      }
    }
    text = String(rest.base[start..<rest.startIndex])
  }

  /// The types from this one down to the first argument, at any depth, that is one of `stops`:
  /// the operators one object stands for, upstream first.
  func stages(downTo stops: Set<String>) -> [TypeName] {
    var stages = [self]
    var current = self
    while let next = current.arguments.first(where: { argument in stops.contains { argument.text.contains($0) } }) {
      if stops.contains(next.text) { break }
      stages.append(next)
      current = next
    }
    return stages
  }

  /// The name without module, namespace or generic arguments: `PassthroughSubject`.
  var bareName: String {
    String(name.split(separator: ".").last ?? Substring(name))
  }

  /// What a report calls the operator this type implements; `nil` for plumbing that stands for
  /// no operator of its own.
  var label: String? {
    let parts = name.split(separator: ".").map(String.init)
    if parts.count > 1 && parts[0] == "Publishers" { return parts[1] }
    let last = parts.last ?? name
    if Self.plumbing.contains(last) || last.hasSuffix("Types") || last.hasSuffix("Side") { return nil }
    if Self.stepHolders.contains(last) { return arguments.first?.stepLabel }
    if last == "SubjectSubscriber" { return arguments.first.map { $0.readableText } }
    if last == "AsyncIterationInner" { return "values" }
    return Self.trimmingRole(last)
  }

  /// How the first object of a pipeline, its subscriber, is shown: with its generic arguments.
  var subscriberLabel: String? {
    if name.hasPrefix("Subscribers.") { return readableText }
    return label
  }

  /// The operator a step type stands for, looking through the generic bundles that carry it.
  private var stepLabel: String? {
    let parts = name.split(separator: ".").map(String.init)
    if parts.last?.hasSuffix("Types") == true { return arguments.first?.stepLabel }
    if parts.count > 1 && parts.last == "Step" { return parts[parts.count - 2] }
    return Self.trimmingRole(parts.last ?? name)
  }

  /// The text without the `Subscribers.` namespace Combine's subscribers live in.
  private var readableText: String {
    text.hasPrefix("Subscribers.") ? String(text.dropFirst("Subscribers.".count)) : text
  }

  /// Types that hold an operator's step, whose first argument names the operator.
  private static let stepHolders: Set<String> = ["PassingStepInner", "FallibleInner", "CombiningSubscription"]

  /// Types that carry a pipeline's calls without being an operator a user wrote.
  private static let plumbing: Set<String> = [
    "Link", "AnySubscriber", "StepSubscription", "TriggerSubscriber", "ChildSubscriber",
  ]

  /// `MapInner` → `Map`, `CatchSubscription` → `Catch`, `MergeStrategy` → `Merge`.
  private static func trimmingRole(_ name: String) -> String {
    for role in ["Inner", "Subscription", "Conduit", "Step", "Strategy"] where name.hasSuffix(role) && name != role {
      return String(name.dropLast(role.count))
    }
    return name
  }
}

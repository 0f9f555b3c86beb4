import Conduit

/// A marble diagram, read: what happens in each frame of a timeline.
///
/// The syntax is RxJS's, with one difference: a group `(ab)` counts as one frame, so that what
/// ``TestScheduler/marbles(of:values:frame:frames:)`` draws reads back the same way.
/// - `-`: nothing happens in this frame;
/// - a letter or a digit: a value, looked up in `values`;
/// - `|`: the timeline finishes; `#`: it fails;
/// - `(…)`: the events inside happen in one frame, in order;
/// - a space: ignored, so that diagrams can be aligned.
struct MarbleDiagram: Equatable {
  enum Event: Equatable {
    case value(Character)
    case finished
    case failed
  }

  /// The events of one frame, in order.
  struct Frame: Equatable {
    var index: Int
    var events: [Event]
  }

  /// The frames in which something happens, in order.
  var frames: [Frame] = []
  /// The number of frames the diagram spans.
  var length = 0

  /// A malformed diagram: why, and the column (1-based) of the symbol at fault.
  struct Malformed: Error, Equatable, CustomStringConvertible {
    let diagram: String
    let column: Int
    let reason: String

    /// The diagram quoted, with a caret under the column at fault.
    var description: String {
      let caret = String(repeating: " ", count: column - 1) + "^"
      return "Marble diagram \"\(diagram)\": \(reason) (column \(column)).\n  \(diagram)\n  \(caret)"
    }
  }

  /// Reads `diagram`; the keys of its values must be in `keys`, and `#` needs `failureAllowed`.
  static func parse(_ diagram: String, keys: Set<Character>, failureAllowed: Bool) throws(Malformed) -> MarbleDiagram {
    var result = MarbleDiagram()
    var group: (column: Int, events: [Event])?
    var completedAt: Int?
    func malformed(_ column: Int, _ reason: String) -> Malformed {
      Malformed(diagram: diagram, column: column, reason: reason)
    }
    for (offset, symbol) in diagram.enumerated() {
      let column = offset + 1
      let event: Event
      switch symbol {
      case " ":
        continue
      case "-":
        if group != nil { throw malformed(column, "'-' inside a group; a group holds only events") }
        result.length += 1
        continue
      case "(":
        if let open = group {
          throw malformed(column, "a group opens inside the group opened at column \(open.column)")
        }
        if completedAt != nil { throw malformed(column, "a group after the completion") }
        group = (column, [])
        continue
      case ")":
        guard let closed = group else { throw malformed(column, "')' closes no group") }
        if closed.events.isEmpty { throw malformed(closed.column, "an empty group") }
        result.frames.append(Frame(index: result.length, events: closed.events))
        result.length += 1
        group = nil
        continue
      case "|":
        event = .finished
      case "#":
        guard failureAllowed else {
          throw malformed(column, "'#' fails the timeline, but no failure was given; pass one with `failure:`")
        }
        event = .failed
      case _ where symbol.isLetter || symbol.isNumber:
        guard keys.contains(symbol) else {
          let known = keys.sorted().map(String.init).joined(separator: ", ")
          throw malformed(column, "'\(symbol)' is not a key of `values` (its keys: \(known.isEmpty ? "none" : known))")
        }
        event = .value(symbol)
      default:
        throw malformed(
          column, "'\(symbol)' is not a marble symbol; use '-', '|', '#', '(', ')', a space, or a letter or digit")
      }
      if let completedAt {
        throw malformed(column, "'\(symbol)' comes after the completion at column \(completedAt)")
      }
      if event == .finished || event == .failed { completedAt = column }
      if group != nil {
        group!.events.append(event)
      } else {
        result.frames.append(Frame(index: result.length, events: [event]))
        result.length += 1
      }
    }
    if let open = group { throw malformed(open.column, "the group opened here is never closed with ')'") }
    return result
  }

  /// Reads `diagram`, stopping with a precondition message that quotes it when it is malformed.
  static func parseOrStop(_ diagram: String, keys: Set<Character>, failureAllowed: Bool) -> MarbleDiagram {
    do {
      return try parse(diagram, keys: keys, failureAllowed: failureAllowed)
    } catch {
      preconditionFailure(error.description)
    }
  }

  /// The diagram's events with their values and failure, at the frame each happens in.
  func timeline<Output, Failure: Error>(
    values: [Character: Output], failure: Failure?
  ) -> [(frame: Int, events: [MarbleEvent<Output, Failure>])] {
    frames.map { frame in
      (
        frame.index,
        frame.events.map { event in
          switch event {
          case .value(let key): .value(values[key]!)
          case .finished: .completion(.finished)
          case .failed: .completion(.failure(failure!))
          }
        }
      )
    }
  }
}

/// An event of a marble timeline, with its value or failure.
enum MarbleEvent<Output, Failure: Error> {
  case value(Output)
  case completion(Subscribers.Completion<Failure>)
}

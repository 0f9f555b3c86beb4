import Conduit
import ConduitTesting
import Dispatch

/// What happened at one virtual millisecond: the position scrolled to, and what each throttle
/// sent.
private struct ThrottleRow {
  var scrolled: Int?
  var first: Int?
  var latest: Int?
}

/// One column of the timeline, right-aligned so the values line up under their heading.
private func column(_ value: Int?, width: Int) -> String {
  let text = value.map { "\($0)" } ?? ""
  return String(repeating: " ", count: max(0, width - text.count)) + text
}

extension Page {
  static let throttling = Page(name: "throttle", title: "the first or the latest of each interval") {
    say(
      "A scroll view reports its offset many times a second, more often than a header that",
      "follows it needs redrawing. throttle(for:scheduler:latest:) lets through at most one",
      "offset per interval; latest chooses which one. With latest: false it is the first offset",
      "of the interval, which is already old when it goes out; with latest: true, the last one,",
      "where the view actually is.")
    say(
      "Both throttles below, 100ms each, watch the same offsets on one DispatchQueue.test, whose",
      "clock moves only when the page advances it. Offsets come every 30ms for 330ms, then the",
      "scrolling stops, and one more comes at 600ms.")
    let scheduler = DispatchQueue.test
    let start = scheduler.now
    var rows: [Int: ThrottleRow] = [:]
    func elapsed() -> Int { start.distance(to: scheduler.now).magnitude / 1_000_000 }

    let offsets = PassthroughSubject<Int, Never>()
    let first = offsets.throttle(for: .milliseconds(100), scheduler: scheduler, latest: false)
      .sink { rows[elapsed(), default: ThrottleRow()].first = $0 }
    let latest = offsets.throttle(for: .milliseconds(100), scheduler: scheduler, latest: true)
      .sink { rows[elapsed(), default: ThrottleRow()].latest = $0 }

    var scrolls = Array(stride(from: 0, through: 330, by: 30).map { (milliseconds: $0, offset: $0 / 3) })
    scrolls.append((milliseconds: 600, offset: 150))
    for scroll in scrolls {
      scheduler.advance(to: start.advanced(by: .milliseconds(scroll.milliseconds)))
      rows[scroll.milliseconds, default: ThrottleRow()].scrolled = scroll.offset
      offsets.send(scroll.offset)
    }
    scheduler.advance(by: .seconds(1))

    show("     time  scrolled to  latest: false  latest: true")
    for (milliseconds, row) in rows.sorted(by: { $0.key < $1.key }) {
      let line =
        column(milliseconds, width: 7) + "ms" + column(row.scrolled, width: 13) + column(row.first, width: 15)
        + column(row.latest, width: 14)
      // Rows without emissions end in padding, which would only be trailing spaces.
      show(String(line.reversed().drop(while: { $0 == " " }).reversed()))
    }

    say(
      "The first offset goes out at once (on the scheduler's next turn), and both agree on it.",
      "After that each throttle sends at most once per 100ms: latest: false sends the first",
      "offset that arrived since its last emission, latest: true the last one. The scrolling",
      "stops at 110: at 400ms latest: true sends 110, where the view came to rest, and latest:",
      "false sends 100, leaving the header behind until the next scroll. After a quiet spell",
      "longer than the interval, the next offset goes out at once again, as at 600ms.")

    offsets.send(completion: .finished)
    scheduler.advance()
    first.cancel()
    latest.cancel()
  }
}

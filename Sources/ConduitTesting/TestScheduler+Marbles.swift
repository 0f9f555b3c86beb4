import Conduit

/// Marble diagrams: timelines written as text, one symbol per frame.
///
/// A diagram is a row of symbols, one frame each; the k-th symbol happens k frames after its
/// timeline starts:
/// - `-`: nothing happens;
/// - a letter or digit: a value, looked up in `values`;
/// - `|`: the timeline finishes; `#`: it fails with `failure`;
/// - `(ab)`: several events in one frame, in order; unlike RxJS, the group counts as one frame,
///   so what ``marbles(of:values:frame:frames:)`` draws reads back the same way;
/// - a space is ignored, so that diagrams can be aligned.
///
/// A malformed diagram (a key that `values` lacks, an unclosed group, an event after the
/// completion, `#` without a failure) stops with a precondition message that quotes it and points
/// at the column.
extension TestScheduler {
  /// A cold publisher whose timeline starts at each subscription: subscribing schedules the
  /// diagram's events on this scheduler, one `frame` apart from the moment of the subscription.
  ///
  /// This is an extension to Combine. The publisher obeys demand as a `Record` does: a value that
  /// comes due before there is demand for it waits, and the completion waits behind it. What a
  /// request frees goes out at the scheduler's next advance, at the current time.
  ///
  /// ```swift
  /// let scheduler = DispatchQueue.test
  /// let typed = scheduler.cold("-a-b----c---|", values: ["a": "s", "b": "sw", "c": "swift"], frame: .milliseconds(10))
  /// let drawn = scheduler.marbles(of: typed.debounce(for: .milliseconds(20), scheduler: scheduler),
  ///                               values: ["b": "sw", "c": "swift"], frame: .milliseconds(10), frames: 15)
  /// #expect(drawn == "-----b----c-|")
  /// ```
  public func cold<Output>(
    _ diagram: String, values: [Character: Output], frame: SchedulerTimeType.Stride
  ) -> AnyPublisher<Output, Never> {
    cold(diagram, values: values, failure: nil as Never?, frame: frame)
  }

  /// A cold publisher whose timeline starts at each subscription, and whose `#` fails with
  /// `failure`.
  ///
  /// This is an extension to Combine (see ``cold(_:values:frame:)``).
  ///
  /// ```swift
  /// struct Boom: Error {}
  /// let flaky = scheduler.cold("-a#", values: ["a": 1], failure: Boom(), frame: .milliseconds(10))
  /// ```
  public func cold<Output, Failure: Error>(
    _ diagram: String, values: [Character: Output], failure: Failure, frame: SchedulerTimeType.Stride
  ) -> AnyPublisher<Output, Failure> {
    cold(diagram, values: values, failure: Optional(failure), frame: frame)
  }

  /// A hot publisher whose timeline starts now: creating it schedules the diagram's events on
  /// this scheduler, one `frame` apart from now, and a subscriber sees what comes after it
  /// subscribed.
  ///
  /// This is an extension to Combine. As a `PassthroughSubject` does, the publisher drops a value
  /// for a subscriber that has no demand for it, and a subscriber that comes after the completion
  /// receives the completion.
  ///
  /// ```swift
  /// let clicks = scheduler.hot("--x--x|", values: ["x": 1], frame: .milliseconds(10))
  /// scheduler.advance(by: .milliseconds(30))  // the first click is gone
  /// let drawn = scheduler.marbles(of: clicks, values: ["x": 1], frame: .milliseconds(10), frames: 5)
  /// #expect(drawn == "--x|")
  /// ```
  public func hot<Output>(
    _ diagram: String, values: [Character: Output], frame: SchedulerTimeType.Stride
  ) -> AnyPublisher<Output, Never> {
    hot(diagram, values: values, failure: nil as Never?, frame: frame)
  }

  /// A hot publisher whose timeline starts now, and whose `#` fails with `failure`.
  ///
  /// This is an extension to Combine (see ``hot(_:values:frame:)``).
  ///
  /// ```swift
  /// let connection = scheduler.hot("-a--#", values: ["a": 1], failure: Boom(), frame: .milliseconds(10))
  /// ```
  public func hot<Output, Failure: Error>(
    _ diagram: String, values: [Character: Output], failure: Failure, frame: SchedulerTimeType.Stride
  ) -> AnyPublisher<Output, Failure> {
    hot(diagram, values: values, failure: Optional(failure), frame: frame)
  }

  /// What `publisher` does, drawn as a marble diagram: subscribes to it now with unlimited
  /// demand, advances this scheduler one `frame` at a time for `frames` frames, or until the
  /// publisher completes, then cancels the subscription and returns the diagram.
  ///
  /// This is an extension to Combine. An event `t` after the subscription is drawn in frame
  /// ⌈t / frame⌉, and what happens at the subscription itself in frame 0, so a value due between
  /// two frames shows in the later one. Several events in one frame are drawn as a group, `(ab)`.
  /// A value equal to an entry of `values` is drawn as its key (the first in alphabetical order,
  /// when several match) and any other value as its description in square brackets, `[42]`; a
  /// failure is drawn as `#`. Nothing is drawn after the completion; without one, the diagram has
  /// `frames + 1` symbols, frames 0 through `frames`.
  ///
  /// ```swift
  /// let clicks = scheduler.hot("-a-b-c|", values: ["a": 1, "b": 2, "c": 3], frame: .seconds(1))
  /// let drawn = scheduler.marbles(of: clicks.map { $0 * 10 }, values: ["a": 10], frame: .seconds(1), frames: 10)
  /// #expect(drawn == "-a-[20]-[30]|")
  /// ```
  public func marbles<P: Publisher>(
    of publisher: P, values: [Character: P.Output] = [:], frame: SchedulerTimeType.Stride, frames: Int
  ) -> String where P.Output: Equatable {
    precondition(
      frame > .zero, "TestScheduler.marbles(of:frame:frames:): the frame is \(frame); pass a positive frame")
    precondition(
      frames >= 0,
      "TestScheduler.marbles(of:frame:frames:): frames is \(frames); pass how many frames to advance, 0 or more")
    let times = now.frameTimes(count: frames + 1, frame: frame)
    let recording = MarbleRecording<P.Output, P.Failure, SchedulerTimeType>(times: times)
    let cancellable = publisher.sink(
      receiveCompletion: { completion in recording.record(.completion(completion), at: self.now) },
      receiveValue: { value in recording.record(.value(value), at: self.now) })
    advance()
    var advanced = 0
    while advanced < frames, !recording.isComplete {
      advanced += 1
      advance(to: times[advanced])
    }
    cancellable.cancel()
    return recording.draw(frames: advanced, keys: values)
  }

  private func cold<Output, Failure: Error>(
    _ diagram: String, values: [Character: Output], failure: Failure?, frame: SchedulerTimeType.Stride
  ) -> AnyPublisher<Output, Failure> {
    let timeline = timeline(diagram, values: values, failure: failure, frame: frame)
    return ColdMarblePublisher(scheduler: self, timeline: timeline, frame: frame).eraseToAnyPublisher()
  }

  private func hot<Output, Failure: Error>(
    _ diagram: String, values: [Character: Output], failure: Failure?, frame: SchedulerTimeType.Stride
  ) -> AnyPublisher<Output, Failure> {
    let timeline = timeline(diagram, values: values, failure: failure, frame: frame)
    let subject = PassthroughSubject<Output, Failure>()
    scheduleTimeline(timeline, from: now, frame: frame) { events in
      for event in events {
        switch event {
        case .value(let value): subject.send(value)
        case .completion(let completion): subject.send(completion: completion)
        }
      }
    }
    return subject.eraseToAnyPublisher()
  }

  /// Schedules `perform` for each frame of `timeline` with events, at its time counted from
  /// `start`.
  func scheduleTimeline<Output, Failure: Error>(
    _ timeline: [(frame: Int, events: [MarbleEvent<Output, Failure>])], from start: SchedulerTimeType,
    frame: SchedulerTimeType.Stride, _ perform: @escaping ([MarbleEvent<Output, Failure>]) -> Void
  ) {
    let times = start.frameTimes(count: (timeline.last?.frame ?? 0) + 1, frame: frame)
    for (index, events) in timeline {
      schedule(after: times[index]) { perform(events) }
    }
  }

  private func timeline<Output, Failure: Error>(
    _ diagram: String, values: [Character: Output], failure: Failure?, frame: SchedulerTimeType.Stride
  ) -> [(frame: Int, events: [MarbleEvent<Output, Failure>])] {
    precondition(frame > .zero, "Marble diagram \"\(diagram)\": the frame is \(frame); pass a positive frame")
    return MarbleDiagram.parseOrStop(diagram, keys: Set(values.keys), failureAllowed: failure != nil)
      .timeline(values: values, failure: failure)
  }
}

/// What ``TestScheduler/marbles(of:values:frame:frames:)`` saw, frame by frame.
private final class MarbleRecording<Output: Equatable, Failure: Error, Time: Comparable>: @unchecked Sendable {
  /// The time of each frame, from the subscription on.
  private let times: [Time]
  // Guarded by its own lock.
  private let events = Locked<[(frame: Int, event: MarbleEvent<Output, Failure>)]>([])

  init(times: [Time]) {
    self.times = times
  }

  var isComplete: Bool {
    events.withLock { events in
      if case .completion = events.last?.event { return true }
      return false
    }
  }

  /// Records `event` in frame ⌈(time - start) / frame⌉: the first frame not before `time`.
  func record(_ event: MarbleEvent<Output, Failure>, at time: Time) {
    let frame = times.firstIndex { time <= $0 } ?? times.count
    events.withLock { $0.append((frame, event)) }
  }

  /// The diagram of frames `0...frames`, or up to the completion.
  func draw(frames: Int, keys: [Character: Output]) -> String {
    let recorded = events.withLock { $0 }
    let keyOrder = keys.keys.sorted()
    func symbol(for event: MarbleEvent<Output, Failure>) -> String {
      switch event {
      case .value(let value):
        if let key = keyOrder.first(where: { keys[$0] == value }) { return String(key) }
        return "[\(value)]"
      case .completion(.finished): return "|"
      case .completion(.failure): return "#"
      }
    }
    let lastFrame = recorded.last.map { max($0.frame, frames) } ?? frames
    let completedAt = recorded.last.flatMap { last -> Int? in
      if case .completion = last.event { return last.frame }
      return nil
    }
    var diagram = ""
    for index in 0...(completedAt ?? lastFrame) {
      let symbols = recorded.filter { $0.frame == index }.map { symbol(for: $0.event) }
      switch symbols.count {
      case 0: diagram += "-"
      case 1: diagram += symbols[0]
      default: diagram += "(" + symbols.joined() + ")"
      }
    }
    return diagram
  }
}

import Conduit
import Testing

// Checks shared by the suites of the one-to-one operators whose subscriber is also the
// subscription they hand downstream, as Combine's are (tryMap, tryFilter, removeDuplicates,
// prefix(while:), output(in:), encode …). Each drives the operator from a `HandDrivenUpstream`
// (Support/HandDrivenUpstream.swift) into a `RecordingSubscriber`, with the upstream's values of
// type `Input` and its failure `ParityError`, and lets go of both at the end.

/// The subscription the subscriber gets is the operator's own, described and reflected as
/// Combine's: `description` and `playgroundDescription` are `name`, and the
/// mirror's children carry `labels`.
func expectOwnSubscription<Input, Operator: Publisher>(
  named name: String, mirrorLabels labels: [String], input: Input.Type,
  sourceLocation: SourceLocation = #_sourceLocation,
  _ makeOperator: (HandDrivenUpstream<Input, ParityError>) -> Operator
) {
  let upstream = HandDrivenUpstream<Input, ParityError>(conduct: .careless)
  let subscriber = RecordingSubscriber<Operator.Output, Operator.Failure>()
  makeOperator(upstream).subscribe(subscriber)
  let subscription = subscriber.subscription
  #expect(subscription.map { "\($0)" } == name, sourceLocation: sourceLocation)
  #expect(
    subscription.flatMap { ($0 as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String }
      == name,
    sourceLocation: sourceLocation)
  let mirror = subscription.flatMap { ($0 as? any CustomReflectable)?.customMirror }
  #expect(mirror?.children.map { $0.label ?? "" } == labels, sourceLocation: sourceLocation)
  // Upstream's subscriber is another object, which upstream alone holds; it describes itself as
  // the subscription does.
  #expect(
    upstream.subscriberObject.map { "\($0)" } == name, sourceLocation: sourceLocation)
  subscriber.forget()
  upstream.detach()
}

/// Once `end` has ended the stream, the subscriber's requests and cancels no longer reach
/// upstream, which saw `.requested(.max(1))` and then `events`.
func expectEndedStreamPassesNothingUpstream<Input, Operator: Publisher>(
  input: Input.Type, after events: [SubscriptionEvent],
  sourceLocation: SourceLocation = #_sourceLocation,
  _ makeOperator: (HandDrivenUpstream<Input, ParityError>) -> Operator,
  end: (HandDrivenUpstream<Input, ParityError>) -> Void
) {
  let upstream = HandDrivenUpstream<Input, ParityError>(conduct: .careless)
  let subscriber = RecordingSubscriber<Operator.Output, Operator.Failure>(initialDemand: .max(1))
  makeOperator(upstream).subscribe(subscriber)
  end(upstream)
  subscriber.subscription?.request(.max(5))
  subscriber.subscription?.cancel()
  subscriber.subscription?.cancel()
  #expect(upstream.events == [.requested(.max(1))] + events, sourceLocation: sourceLocation)
  subscriber.forget()
  upstream.detach()
}

/// The first cancel reaches upstream and ends the stream: later requests and cancels are not
/// passed on, and `value` and a completion that a careless upstream still sends do not reach
/// the subscriber (`value` is not even looked at).
func expectCancelEndsTheStream<Input, Operator: Publisher>(
  named name: String, sending value: Input, sourceLocation: SourceLocation = #_sourceLocation,
  _ makeOperator: (HandDrivenUpstream<Input, ParityError>) -> Operator
) {
  let upstream = HandDrivenUpstream<Input, ParityError>(conduct: .careless)
  let subscriber = RecordingSubscriber<Operator.Output, Operator.Failure>(
    initialDemand: .unlimited, demandPerValue: .max(1))
  makeOperator(upstream).subscribe(subscriber)
  subscriber.subscription?.cancel()
  subscriber.subscription?.request(.unlimited)
  subscriber.subscription?.cancel()
  #expect(upstream.events == [.requested(.unlimited), .cancelled], sourceLocation: sourceLocation)
  #expect(upstream.send(value) == .none, sourceLocation: sourceLocation)
  upstream.send(completion: .finished)
  upstream.send(completion: .failure(ParityError()))
  #expect(subscriber.history == ["subscription(\(name))"], sourceLocation: sourceLocation)
  subscriber.forget()
  upstream.detach()
}

/// What the operator does with a cancel, a request and a completion that reach it before
/// upstream's subscription, as Combine's subscription of the operator does. Combine's operators
/// differ, in three ways that the enum's cases name.
enum EarlyEvents {
  /// All three are ignored: the subscription that comes later is taken as if nothing had
  /// happened (tryMap, tryScan, output(in:), drop(while:)).
  case ignored
  /// The request and the cancel are ignored; the completion is passed on and ends the stream, so
  /// the subscription that comes later is cancelled (encode, decode).
  case completionPassedOn
  /// The cancel ends the stream, so the subscription that comes later is cancelled (tryFilter,
  /// removeDuplicates, prefix(while:) …, which trap on the request and the completion).
  case cancelEnds
}

/// Checks the operator against `early`: each event is sent to the operator's subscriber before
/// its subscription, then the subscription is sent.
func expectEarlyEvents<Input, Operator: Publisher>(
  _ early: EarlyEvents, named name: String, input: Input.Type,
  sourceLocation: SourceLocation = #_sourceLocation,
  _ makeOperator: (HandDrivenUpstream<Input, ParityError>) -> Operator
) {
  func run(
    _ before: (HandDrivenUpstream<Input, ParityError>) -> Void
  ) -> (HandDrivenUpstream<Input, ParityError>, [String]) {
    let upstream = HandDrivenUpstream<Input, ParityError>(conduct: .careless, sendsSubscription: false)
    let subscriber = RecordingSubscriber<Operator.Output, Operator.Failure>(initialDemand: .max(2))
    makeOperator(upstream).subscribe(subscriber)
    before(upstream)
    upstream.sendSubscription()
    let history = subscriber.history
    subscriber.forget()
    upstream.detach()
    return (upstream, history)
  }

  let (cancelled, cancelledHistory) = run { $0.subscriberAsSubscription?.cancel() }
  switch early {
  case .ignored, .completionPassedOn:
    #expect(cancelled.events == [.requested(.max(2))], sourceLocation: sourceLocation)
    #expect(cancelledHistory == ["subscription(\(name))"], sourceLocation: sourceLocation)
  case .cancelEnds:
    #expect(cancelled.events == [.cancelled], sourceLocation: sourceLocation)
    #expect(cancelledHistory.isEmpty, sourceLocation: sourceLocation)
    return
  }

  let (requested, requestedHistory) = run { $0.subscriberAsSubscription?.request(.max(7)) }
  #expect(requested.events == [.requested(.max(2))], sourceLocation: sourceLocation)
  #expect(requestedHistory == ["subscription(\(name))"], sourceLocation: sourceLocation)

  let (completed, completedHistory) = run { $0.send(completion: .finished) }
  switch early {
  case .ignored:
    #expect(completed.events == [.requested(.max(2))], sourceLocation: sourceLocation)
    #expect(completedHistory == ["subscription(\(name))"], sourceLocation: sourceLocation)
  case .completionPassedOn, .cancelEnds:
    #expect(completed.events == [.cancelled], sourceLocation: sourceLocation)
    #expect(completedHistory == ["finished"], sourceLocation: sourceLocation)
  }
}

/// The operator's subscriber, as upstream sees it, is described and reflected as Combine's:
/// `description` and `playgroundDescription` are `name`, and the mirror's children carry `labels`
/// (and `values` as text, when given). It is no subscription of its own: the subscriber gets
/// upstream's.
func expectPassThroughSubscriber<Input, UpstreamFailure: Error, Operator: Publisher>(
  named name: String, mirrorLabels labels: [String], mirrorValues values: [String]? = nil,
  input: Input.Type, failure: UpstreamFailure.Type,
  sourceLocation: SourceLocation = #_sourceLocation,
  _ makeOperator: (HandDrivenUpstream<Input, UpstreamFailure>) -> Operator
) {
  let upstream = HandDrivenUpstream<Input, UpstreamFailure>(conduct: .careless)
  let subscriber = RecordingSubscriber<Operator.Output, Operator.Failure>()
  makeOperator(upstream).subscribe(subscriber)
  let inner = upstream.subscriberObject
  #expect(inner.flatMap { ($0 as? any CustomStringConvertible)?.description } == name, sourceLocation: sourceLocation)
  #expect(
    inner.flatMap { ($0 as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String } == name,
    sourceLocation: sourceLocation)
  let children = inner.flatMap { ($0 as? any CustomReflectable)?.customMirror.children }
  #expect(children?.map { $0.label ?? "" } == labels, sourceLocation: sourceLocation)
  if let values {
    #expect(children?.map { "\($0.value)" } == values, sourceLocation: sourceLocation)
  }
  #expect(inner.map { !($0 is any Subscription) } == true, sourceLocation: sourceLocation)
  #expect((subscriber.subscription as AnyObject?) === upstream.link, sourceLocation: sourceLocation)
  subscriber.forget()
  upstream.detach()
}

// The same checks for an upstream of `Int` values (and `ParityError`), as most operators' tests use.

func expectOwnSubscription<Operator: Publisher>(
  named name: String, mirrorLabels labels: [String], sourceLocation: SourceLocation = #_sourceLocation,
  _ makeOperator: (HandDrivenUpstream<Int, ParityError>) -> Operator
) {
  expectOwnSubscription(
    named: name, mirrorLabels: labels, input: Int.self, sourceLocation: sourceLocation, makeOperator)
}

func expectEndedStreamPassesNothingUpstream<Operator: Publisher>(
  after events: [SubscriptionEvent], sourceLocation: SourceLocation = #_sourceLocation,
  _ makeOperator: (HandDrivenUpstream<Int, ParityError>) -> Operator,
  end: (HandDrivenUpstream<Int, ParityError>) -> Void
) {
  expectEndedStreamPassesNothingUpstream(
    input: Int.self, after: events, sourceLocation: sourceLocation, makeOperator, end: end)
}

func expectEarlyEvents<Operator: Publisher>(
  _ early: EarlyEvents, named name: String, sourceLocation: SourceLocation = #_sourceLocation,
  _ makeOperator: (HandDrivenUpstream<Int, ParityError>) -> Operator
) {
  expectEarlyEvents(early, named: name, input: Int.self, sourceLocation: sourceLocation, makeOperator)
}

func expectPassThroughSubscriber<Operator: Publisher>(
  named name: String, mirrorLabels labels: [String], mirrorValues values: [String]? = nil,
  sourceLocation: SourceLocation = #_sourceLocation,
  _ makeOperator: (HandDrivenUpstream<Int, ParityError>) -> Operator
) {
  expectPassThroughSubscriber(
    named: name, mirrorLabels: labels, mirrorValues: values, input: Int.self, failure: ParityError.self,
    sourceLocation: sourceLocation, makeOperator)
}

/// After a cancel, the subscription lets go of the subscriber and of the operator's closures
/// once upstream (a subject) lets go of the operator, even though the subscriber keeps the
/// cancelled subscription: the subscriber and what the closures captured are freed, where a
/// subscription that kept them would make a cycle with the subscriber.
func expectCancelFreesASubscriberThatKeepsItsSubscription<Operator: Publisher>(
  sourceLocation: SourceLocation = #_sourceLocation,
  _ makeOperator: (PassthroughSubject<Int, ParityError>, CapturedProbe) -> Operator
) {
  let subject = PassthroughSubject<Int, ParityError>()
  weak var weakSubscriber: RecordingSubscriber<Operator.Output, Operator.Failure>?
  weak var weakCaptured: CapturedProbe?
  do {
    let captured = CapturedProbe()
    let subscriber = RecordingSubscriber<Operator.Output, Operator.Failure>(initialDemand: .unlimited)
    makeOperator(subject, captured).subscribe(subscriber)
    weakSubscriber = subscriber
    weakCaptured = captured
    subject.send(1)
    subscriber.subscription?.cancel()
  }
  #expect(weakSubscriber == nil, sourceLocation: sourceLocation)
  #expect(weakCaptured == nil, sourceLocation: sourceLocation)
}

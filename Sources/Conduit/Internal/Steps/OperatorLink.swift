/// The types an operator's subscriber works with, named by one generic parameter: the values
/// and errors it receives, and the subscriber it sends on to.
///
/// **Why one parameter.** The optimizer specializes a pipeline's code for its concrete types
/// only while no generic function recurs along a call chain with type arguments that grow. When
/// one does, it suspects an endless chain of specializations and, from the second repetition on,
/// leaves the calls generic: code that looks up type metadata on every value. A subscriber
/// nested in `Publishers.Filter<Upstream>` takes `Upstream` as a type argument, and `Upstream`
/// grows from one use of the operator to the next in a pipeline: the third `filter` of
/// `map`, `filter`, `map`, `filter`, `map`, `filter` would run generic code on every value. So
/// does a value type that grows (`map { ($0, 1) }` repeated, or `combineLatest` of a
/// `combineLatest`). A link's `Downstream` holds the next use's link, so
/// from one use to the next the type argument shrinks, whatever the values' types, and the
/// whole pipeline is specialized.
///
/// **Why only where the values or errors change type.** The optimizer also gives up on a type
/// nested more than 50 levels deep, and a pipeline's subscriber type nests one level per
/// subscriber and one per link, so a chain of operators that each nest two levels runs generic
/// code from its 22nd operator or so. An operator that passes on the values and errors it
/// receives cannot make them grow, so its subscriber is generic over its downstream alone, one
/// level per use (`FilterInner`, `DropInner`, `HandleEventsInner` …); a chain that mixes them
/// with the others (`map`, `filter`, `removeDuplicates`, `handleEvents`, `scan`, `compactMap`)
/// then stays specialized to about 30 operators. A pipeline longer than that can erase a part of
/// itself with `eraseToAnyPublisher()`, which starts the nesting afresh above it.
@usableFromInline
protocol OperatorLink {
  /// The kind of values the subscriber receives.
  associatedtype Input
  /// The kind of errors the subscriber receives.
  associatedtype Failure: Error
  /// The subscriber it sends on to.
  associatedtype Downstream: Subscriber
}

/// The `OperatorLink` of a subscriber that receives `Input` and `Failure` and sends on to
/// `Downstream`. Never instantiated.
@usableFromInline
enum Link<Input, Failure: Error, Downstream: Subscriber>: OperatorLink {}

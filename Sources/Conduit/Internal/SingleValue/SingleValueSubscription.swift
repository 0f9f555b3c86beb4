import Synchronization

// Single value: the subscription of `Just`, `Optional.Publisher` and `Result.Publisher`.
// One file.

/// Delivers one value and then `.finished` as soon as the subscriber demands anything.
///
/// Shared by `Just`, `Optional.Publisher` and `Result.Publisher`.
///
/// The class is not generic: the downstream and the value live in an `emit` function created
/// where their types are known. Its request and cancel paths, and its teardown, are then plain
/// code; a generic class would tear down through the runtime's generic-metadata lookups, once
/// per subscription, which is once per value inside a `flatMap`.
@usableFromInline
///
/// It is described, reflected and shown in playgrounds as Combine's subscriptions of these
/// publishers are: by the publisher's name, with the value as the mirror's one unlabelled child
/// until the subscription ends.
final class SingleValueSubscription: Subscription, CustomStringConvertible, CustomReflectable,
  CustomPlaygroundDisplayConvertible, CensusScoped, Sendable
{
  /// Sends the value, or the completion, to the downstream.
  @usableFromInline
  typealias Emit = (SingleValueEvent) -> Void

  @usableFromInline
  enum State {
    case pending(Emit)
    /// The value is out; the completion follows unless the subscriber cancels meanwhile.
    case delivering(Emit)
    case terminal
  }

  // Guarded by its own lock.
  @usableFromInline
  let state: Locked<State>
  @usableFromInline
  let census: CensusToken
  @usableFromInline
  let description: String

  @usableFromInline
  var censusScope: CensusScope? { census.scope }

  @usableFromInline
  var playgroundDescription: Any { description }

  @usableFromInline
  var customMirror: Mirror {
    var value: Any?
    // Copying the value out calls nothing outside this file, so it may happen under the lock.
    withUnsafeMutablePointer(to: &value) { child in
      state.withLock { state in
        switch state {
        case .pending(let emit), .delivering(let emit): emit(.reflect(child))
        case .terminal: break
        }
      }
    }
    return Mirror(self, unlabeledChildren: value.map { [$0] } ?? [])
  }

  @inlinable
  convenience init<Downstream: Subscriber>(_ value: Downstream.Input, downstream: Downstream, description: String) {
    self.init(
      description: description, inheritingFrom: downstream,
      emit: { event in
        switch event {
        case .value: _ = downstream.receive(value)
        case .finished: downstream.receive(completion: .finished)
        case .reflect(let child): child.pointee = value
        }
      })
  }

  @usableFromInline
  init(description: String, inheritingFrom downstream: Any, emit: @escaping Emit) {
    census = CensusToken(SingleValueSubscription.self, inheritingFrom: downstream)
    state = Locked(.pending(emit))
    self.description = description
  }

  @usableFromInline
  func request(_ demand: Subscribers.Demand) {
    demand.assertPositive()
    // The function travels out of the lock inside a struct: a bare function type passing
    // through the lock's generic result would be re-abstracted, at the cost of an allocation.
    let taken: Emitter? = state.withLock { state in
      guard case .pending(let emit) = state else { return nil }
      state = .delivering(emit)
      return Emitter(emit: emit)
    }
    guard let emit = taken?.emit else { return }
    emit(.value)
    let stillSubscribed = state.withLock { state -> Bool in
      guard case .delivering = state else { return false }
      state = .terminal
      return true
    }
    if stillSubscribed { emit(.finished) }
  }

  @usableFromInline
  func cancel() {
    // The function leaves after the lock, and the subscriber and value it holds: their deinits
    // may cancel this subscription.
    withExtendedLifetime(state.exchange(.terminal)) {}
  }
}

/// What a `SingleValueSubscription` sends.
@usableFromInline
enum SingleValueEvent {
  case value
  case finished
  /// Copies the value into the pointee, for the subscription's mirror.
  case reflect(UnsafeMutablePointer<Any?>)
}

/// Carries a `SingleValueSubscription.Emit` out of the lock.
@usableFromInline
struct Emitter {
  @usableFromInline
  let emit: SingleValueSubscription.Emit

  @inlinable
  init(emit: @escaping SingleValueSubscription.Emit) {
    self.emit = emit
  }
}

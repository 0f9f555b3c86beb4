import Synchronization

/// The slots of three upstreams.
@usableFromInline
struct Slots3<A, B, C>: SlotSet {
  @usableFromInline
  var a = CombiningSlot<A>()
  @usableFromInline
  var b = CombiningSlot<B>()
  @usableFromInline
  var c = CombiningSlot<C>()

  @inlinable
  init() {}

  @inlinable @inline(__always)
  mutating func combineLatest<Value>(_ value: Value, at index: Int) -> (A, B, C)? {
    switch index {
    case 0:
      let value = value as! A
      a.latest = value
      guard let b = b.latest, let c = c.latest else { return nil }
      return (value, b, c)
    case 1:
      let value = value as! B
      b.latest = value
      guard let a = a.latest, let c = c.latest else { return nil }
      return (a, value, c)
    default:
      let value = value as! C
      c.latest = value
      guard let a = a.latest, let b = b.latest else { return nil }
      return (a, b, value)
    }
  }

  @inlinable @inline(__always)
  mutating func enqueue<Value>(_ value: Value, at index: Int) -> (A, B, C)? {
    // Once no output can be made, at least one slot is drained. If the slot of `value` is, and
    // the others are not, `value` completes an output at once; otherwise it waits its turn.
    switch index {
    case 0:
      if a.isDrained, !b.isDrained, !c.isDrained { return ((value as! A), b.takeOldest(), c.takeOldest()) }
      a.push(value as! A)
    case 1:
      if b.isDrained, !a.isDrained, !c.isDrained { return (a.takeOldest(), (value as! B), c.takeOldest()) }
      b.push(value as! B)
    default:
      if c.isDrained, !a.isDrained, !b.isDrained { return (a.takeOldest(), b.takeOldest(), (value as! C)) }
      c.push(value as! C)
    }
    return nil
  }

  @inlinable
  func finishedSlotIsEmpty(_ progress: UpstreamProgress) -> Bool {
    (progress.finished[0] && a.isDrained) || (progress.finished[1] && b.isDrained)
      || (progress.finished[2] && c.isDrained)
  }

  @inlinable
  mutating func removeAll() {
    a.forget()
    b.forget()
    c.forget()
  }
}

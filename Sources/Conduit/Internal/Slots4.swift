import Synchronization

/// The slots of four upstreams.
@usableFromInline
struct Slots4<A, B, C, D>: SlotSet {
  @usableFromInline
  var a = CombiningSlot<A>()
  @usableFromInline
  var b = CombiningSlot<B>()
  @usableFromInline
  var c = CombiningSlot<C>()
  @usableFromInline
  var d = CombiningSlot<D>()

  @inlinable
  init() {}

  @inlinable @inline(__always)
  mutating func combineLatest<Value>(_ value: Value, at index: Int) -> (A, B, C, D)? {
    switch index {
    case 0:
      let value = value as! A
      a.latest = value
      guard let b = b.latest, let c = c.latest, let d = d.latest else { return nil }
      return (value, b, c, d)
    case 1:
      let value = value as! B
      b.latest = value
      guard let a = a.latest, let c = c.latest, let d = d.latest else { return nil }
      return (a, value, c, d)
    case 2:
      let value = value as! C
      c.latest = value
      guard let a = a.latest, let b = b.latest, let d = d.latest else { return nil }
      return (a, b, value, d)
    default:
      let value = value as! D
      d.latest = value
      guard let a = a.latest, let b = b.latest, let c = c.latest else { return nil }
      return (a, b, c, value)
    }
  }

  @inlinable @inline(__always)
  mutating func enqueue<Value>(_ value: Value, at index: Int) -> (A, B, C, D)? {
    // Once no output can be made, at least one slot is drained. If the slot of `value` is, and
    // the others are not, `value` completes an output at once; otherwise it waits its turn.
    switch index {
    case 0:
      if a.isDrained, !b.isDrained, !c.isDrained, !d.isDrained {
        return ((value as! A), b.takeOldest(), c.takeOldest(), d.takeOldest())
      }
      a.push(value as! A)
    case 1:
      if b.isDrained, !a.isDrained, !c.isDrained, !d.isDrained {
        return (a.takeOldest(), (value as! B), c.takeOldest(), d.takeOldest())
      }
      b.push(value as! B)
    case 2:
      if c.isDrained, !a.isDrained, !b.isDrained, !d.isDrained {
        return (a.takeOldest(), b.takeOldest(), (value as! C), d.takeOldest())
      }
      c.push(value as! C)
    default:
      if d.isDrained, !a.isDrained, !b.isDrained, !c.isDrained {
        return (a.takeOldest(), b.takeOldest(), c.takeOldest(), (value as! D))
      }
      d.push(value as! D)
    }
    return nil
  }

  @inlinable
  func finishedSlotIsEmpty(_ progress: UpstreamProgress) -> Bool {
    (progress.finished[0] && a.isDrained) || (progress.finished[1] && b.isDrained)
      || (progress.finished[2] && c.isDrained) || (progress.finished[3] && d.isDrained)
  }

  @inlinable
  mutating func removeAll() {
    a.forget()
    b.forget()
    c.forget()
    d.forget()
  }
}

import Synchronization

/// One slot per upstream, of each upstream's output type: the storage of `Zip` and
/// `CombineLatest`, written out for each arity that Combine has. The reads are specialized for
/// the concrete slot types, so that an output is built in registers: a loop over a parameter
/// pack runs unspecialized generic code for every element, and a stored reader closure returns
/// each output through memory.
///
/// A value comes with the index of the upstream that delivered it, and its type is that
/// upstream's output type: the subscription attaches its upstreams in the order of the slots.
/// The casts that follow from it cost nothing once specialized.
@usableFromInline
protocol SlotSet {
  associatedtype Output

  /// Makes `value`, which upstream `index` delivered, the latest value of its slot, and returns
  /// the latest value of every slot once each has one (combineLatest). The output takes `value`
  /// itself rather than reading it back from its slot.
  mutating func combineLatest<Value>(_ value: Value, at index: Int) -> Output?

  /// Adds `value`, which upstream `index` delivered, to the values queued in its slot (zip), and
  /// takes the oldest queued value of every slot once each has one. When `value` completes an
  /// output, it goes into that output without being queued.
  mutating func enqueue<Value>(_ value: Value, at index: Int) -> Output?

  /// Whether an upstream that has finished has nothing queued: nothing more can pair with it.
  func finishedSlotIsEmpty(_ finished: [Bool]) -> Bool

  /// Forgets every value held.
  mutating func removeAll()
}

/// The slots of two upstreams.
@usableFromInline
struct Slots2<A, B>: SlotSet {
  @usableFromInline
  var a = CombiningSlot<A>()
  @usableFromInline
  var b = CombiningSlot<B>()

  @inlinable
  init() {}

  @inlinable @inline(__always)
  mutating func combineLatest<Value>(_ value: Value, at index: Int) -> (A, B)? {
    switch index {
    case 0:
      let value = value as! A
      a.latest = value
      guard let b = b.latest else { return nil }
      return (value, b)
    default:
      let value = value as! B
      b.latest = value
      guard let a = a.latest else { return nil }
      return (a, value)
    }
  }

  @inlinable @inline(__always)
  mutating func enqueue<Value>(_ value: Value, at index: Int) -> (A, B)? {
    // Once no output can be made, at least one slot is drained. If the slot of `value` is, and
    // the others are not, `value` completes an output at once; otherwise it waits its turn.
    switch index {
    case 0:
      if a.isDrained, !b.isDrained { return ((value as! A), b.takeOldest()) }
      a.push(value as! A)
    default:
      if b.isDrained, !a.isDrained { return (a.takeOldest(), (value as! B)) }
      b.push(value as! B)
    }
    return nil
  }

  @usableFromInline
  func finishedSlotIsEmpty(_ finished: [Bool]) -> Bool {
    (finished[0] && a.isDrained) || (finished[1] && b.isDrained)
  }

  @inlinable
  mutating func removeAll() {
    a.forget()
    b.forget()
  }
}

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

  @usableFromInline
  func finishedSlotIsEmpty(_ finished: [Bool]) -> Bool {
    (finished[0] && a.isDrained) || (finished[1] && b.isDrained)
      || (finished[2] && c.isDrained)
  }

  @inlinable
  mutating func removeAll() {
    a.forget()
    b.forget()
    c.forget()
  }
}

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

  @usableFromInline
  func finishedSlotIsEmpty(_ finished: [Bool]) -> Bool {
    (finished[0] && a.isDrained) || (finished[1] && b.isDrained)
      || (finished[2] && c.isDrained) || (finished[3] && d.isDrained)
  }

  @inlinable
  mutating func removeAll() {
    a.forget()
    b.forget()
    c.forget()
    d.forget()
  }
}

/// Calls the transform of `combineLatest(_:_:)` or `zip(_:_:)` with the elements of a tuple as
/// arguments, through a call that is never inlined ("combineLatest of 4 sources with a transform, nested
/// 7 deep and not erased").
///
/// The tuple comes through `map`'s transform, which takes it in memory, just written element by
/// element. Inlined there, a transform that the optimizer vectorizes (`{ $0 + $1 + $2 + $3 }`)
/// reads it back with wider loads than those stores, which the processor cannot forward from its
/// store buffer, so every value stalls. Read one element at a time and passed in registers, the
/// elements forward.
@inlinable @inline(never)
func callOutOfLine<A, B, T>(_ transform: (A, B) -> T, _ a: A, _ b: B) -> T {
  transform(a, b)
}

/// `callOutOfLine(_:_:_:)` for three elements.
@inlinable @inline(never)
func callOutOfLine<A, B, C, T>(_ transform: (A, B, C) -> T, _ a: A, _ b: B, _ c: C) -> T {
  transform(a, b, c)
}

/// `callOutOfLine(_:_:_:)` for four elements.
@inlinable @inline(never)
func callOutOfLine<A, B, C, D, T>(_ transform: (A, B, C, D) -> T, _ a: A, _ b: B, _ c: C, _ d: D) -> T {
  transform(a, b, c, d)
}

import Synchronization

/// Calls the transform of `combineLatest(_:_:)` or `zip(_:_:)` with the elements of a tuple as
/// arguments, through a call that is never inlined.
///
/// The tuple comes through `map`'s transform, which takes it in memory, just written element by
/// element. Inlined there, a transform that the optimizer vectorizes (`{ $0 + $1 + $2 + $3 }`)
/// reads it back with wider loads than those stores, which the processor cannot forward from its
/// store buffer, so every value stalls. Read one element at a time and passed in registers, the
/// elements forward.
@usableFromInline
enum SpreadTuple {
  @inlinable @inline(never)
  static func apply<A, B, T>(_ transform: (A, B) -> T, _ a: A, _ b: B) -> T {
    transform(a, b)
  }

  @inlinable @inline(never)
  static func apply<A, B, C, T>(_ transform: (A, B, C) -> T, _ a: A, _ b: B, _ c: C) -> T {
    transform(a, b, c)
  }

  @inlinable @inline(never)
  static func apply<A, B, C, D, T>(_ transform: (A, B, C, D) -> T, _ a: A, _ b: B, _ c: C, _ d: D) -> T {
    transform(a, b, c, d)
  }
}

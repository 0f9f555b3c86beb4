import Synchronization

extension Array {
  /// `Array(repeating:count:)` for the counts a combining operator has, written as literals:
  /// `Array(repeating:count:)` allocates through unspecialized code that looks up the storage
  /// type's metadata on every call, and subscribing to a combining operator calls it once per
  /// per-upstream array.
  @inlinable @inline(__always)
  static func upstreams(repeating value: Element, count: Int) -> [Element] {
    switch count {
    case 2: return [value, value]
    case 3: return [value, value, value]
    case 4: return [value, value, value, value]
    case 5: return [value, value, value, value, value]
    case 6: return [value, value, value, value, value, value]
    case 7: return [value, value, value, value, value, value, value]
    case 8: return [value, value, value, value, value, value, value, value]
    default: return Array(repeating: value, count: count)
    }
  }
}

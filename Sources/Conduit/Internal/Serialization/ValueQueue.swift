import Synchronization

/// A first-in first-out queue of values waiting for delivery, shared by the operators that hold
/// values back (`buffer`, `flatMap`, `switchToLatest`, the combining operators). A ring buffer:
/// appending and popping are O(1) with no allocation once it has grown to the largest number of
/// values waiting at once, and a popped element is released at once.
@usableFromInline
package struct ValueQueue<Element> {
  @usableFromInline
  var storage: ContiguousArray<Element?> = []
  /// Where the oldest element is, when there is one.
  @usableFromInline
  var head = 0
  @usableFromInline
  var count = 0

  @inlinable
  package init() {}

  @inlinable
  package var isEmpty: Bool { count == 0 }

  @inlinable
  package mutating func append(_ element: Element) {
    if count == storage.count { grow() }
    var index = head + count
    if index >= storage.count { index -= storage.count }
    storage[index] = element
    count += 1
  }

  @inlinable
  package mutating func popFirst() -> Element? {
    guard count > 0 else { return nil }
    let element = storage[head].take()
    count -= 1
    head = count == 0 || head + 1 == storage.count ? 0 : head + 1
    return element
  }

  /// The elements, oldest first.
  @inlinable
  package var elements: [Element] {
    (0..<count).map { offset in
      var index = head + offset
      if index >= storage.count { index -= storage.count }
      return storage[index]!
    }
  }

  /// Releases every element, keeping the storage for what comes next.
  @inlinable
  package mutating func removeAll() {
    while count > 0 { _ = popFirst() }
    head = 0
  }

  /// Doubles the capacity, moving the elements to the front in order.
  @inlinable @inline(never)
  mutating func grow() {
    var grown = ContiguousArray<Element?>()
    grown.reserveCapacity(Swift.max(4, storage.count * 2))
    for offset in 0..<count {
      var index = head + offset
      if index >= storage.count { index -= storage.count }
      grown.append(storage[index].take())
    }
    while grown.count < grown.capacity { grown.append(nil) }
    storage = grown
    head = 0
  }
}

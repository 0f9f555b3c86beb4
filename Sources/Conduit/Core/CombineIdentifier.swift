import Synchronization

private let nextCombineIdentifier = Atomic<UInt64>(0)

/// A unique identifier for identifying publisher streams.
///
/// ```swift
/// let id = CombineIdentifier()
/// let sameAsObject = CombineIdentifier(someObject)
/// ```
public struct CombineIdentifier: Hashable, CustomStringConvertible, Sendable {
  private let rawValue: UInt64

  /// Creates a unique identifier.
  public init() {
    rawValue = nextCombineIdentifier.wrappingAdd(1, ordering: .relaxed).newValue | (1 << 63)
  }

  /// Creates an identifier for the given object, equal for every call with the same object.
  public init(_ obj: AnyObject) {
    rawValue = UInt64(UInt(bitPattern: ObjectIdentifier(obj))) & ~(1 << 63)
  }

  /// A textual representation of this instance.
  public var description: String {
    "0x" + String(rawValue, radix: 16)
  }
}

/// A protocol for uniquely identifying publisher streams.
///
/// Classes get a default identifier based on their identity.
///
/// ```swift
/// print(subscriber.combineIdentifier)
/// ```
public protocol CustomCombineIdentifierConvertible {
  /// A unique identifier for identifying publisher streams.
  var combineIdentifier: CombineIdentifier { get }
}

extension CustomCombineIdentifierConvertible where Self: AnyObject {
  /// The identifier of this object, derived from its identity.
  public var combineIdentifier: CombineIdentifier {
    CombineIdentifier(self)
  }
}

/// A type that encodes a whole value into some serialized form, such as JSON data or a
/// property list.
///
/// `Publisher.encode(encoder:)` uses it. Foundation's `JSONEncoder` and `PropertyListEncoder`
/// conform in `ConduitFoundation`: `import ConduitFoundation` and pass them as in Combine.
/// Conduit itself does not import Foundation; any other type of this shape can conform too.
///
/// ```swift
/// struct DescriptionEncoder: TopLevelEncoder {
///     func encode<T: Encodable>(_ value: T) throws -> String { String(describing: value) }
/// }
/// let cancellable = Just(42).encode(encoder: DescriptionEncoder())
///     .sink(receiveCompletion: { _ in }, receiveValue: { print($0) })   // "42"
/// ```
public protocol TopLevelEncoder {
  /// The type this encoder produces.
  associatedtype Output

  /// Encodes an instance of the indicated type.
  ///
  /// - Parameter value: The instance to encode.
  func encode<T: Encodable>(_ value: T) throws -> Output
}

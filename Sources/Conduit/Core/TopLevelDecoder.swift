/// A type that decodes a whole value from some serialized form, such as JSON data or a
/// property list.
///
/// `Publisher.decode(type:decoder:)` uses it. Foundation's `JSONDecoder` and
/// `PropertyListDecoder` conform in `ConduitFoundation`: `import ConduitFoundation` and pass them
/// as in Combine. Conduit itself does not import Foundation; any other type of this shape can
/// conform too.
///
/// ```swift
/// struct IntDecoder: TopLevelDecoder {
///     struct NotANumber: Error {}
///     func decode<T: Decodable>(_ type: T.Type, from text: String) throws -> T {
///         guard let value = Int(text) as? T else { throw NotANumber() }
///         return value
///     }
/// }
/// let cancellable = Just("42").decode(type: Int.self, decoder: IntDecoder())
///     .sink(receiveCompletion: { _ in }, receiveValue: { print($0) })   // 42
/// ```
public protocol TopLevelDecoder {
  /// The type this decoder accepts.
  associatedtype Input

  /// Decodes an instance of the indicated type.
  ///
  /// - Parameters:
  ///   - type: The type of the value to decode.
  ///   - from: The serialized form to decode it from.
  func decode<T: Decodable>(_ type: T.Type, from: Input) throws -> T
}

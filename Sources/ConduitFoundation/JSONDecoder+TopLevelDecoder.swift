import Foundation

/// `JSONDecoder` decodes `Data` into a value, so `Publisher.decode(type:decoder:)` accepts it, as in Combine.
///
/// ```swift
/// let cancellable = Just(Data(#"{"x":1,"y":2}"#.utf8))
///     .decode(type: Point.self, decoder: JSONDecoder())
///     .sink(receiveCompletion: { _ in }, receiveValue: { print($0) })
/// ```
extension JSONDecoder: TopLevelDecoder {}

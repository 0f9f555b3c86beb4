import Foundation

/// `PropertyListDecoder` decodes `Data` into a value, so `Publisher.decode(type:decoder:)` accepts it, as in Combine.
///
/// ```swift
/// let data = try PropertyListEncoder().encode(Point(x: 1, y: 2))
/// let cancellable = Just(data)
///     .decode(type: Point.self, decoder: PropertyListDecoder())
///     .sink(receiveCompletion: { _ in }, receiveValue: { print($0) })
/// ```
extension PropertyListDecoder: TopLevelDecoder {}

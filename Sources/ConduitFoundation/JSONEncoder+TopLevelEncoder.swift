import Foundation

/// `JSONEncoder` encodes a value into `Data`, so `Publisher.encode(encoder:)` accepts it, as in Combine.
///
/// ```swift
/// let cancellable = Just(Point(x: 1, y: 2))
///     .encode(encoder: JSONEncoder())
///     .sink(receiveCompletion: { _ in }, receiveValue: { print($0) })
/// ```
extension JSONEncoder: TopLevelEncoder {}

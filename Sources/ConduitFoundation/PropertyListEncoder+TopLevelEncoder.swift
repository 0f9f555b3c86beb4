import Foundation

/// `PropertyListEncoder` encodes a value into `Data`, so `Publisher.encode(encoder:)` accepts it, as in Combine.
///
/// ```swift
/// let cancellable = Just(Point(x: 1, y: 2))
///     .encode(encoder: PropertyListEncoder())
///     .sink(receiveCompletion: { _ in }, receiveValue: { print($0) })
/// ```
extension PropertyListEncoder: TopLevelEncoder {}

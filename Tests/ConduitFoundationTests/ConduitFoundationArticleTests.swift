import ConduitFoundation
import ConduitTesting
import Foundation
import Testing

private struct Forecast: Decodable, Equatable {
  let city: String
  let temperature: Double
}

/// The example of the landing page of `ConduitFoundation`'s documentation
/// (Sources/ConduitFoundation/ConduitFoundation.docc/ConduitFoundation.md), run as it is written
/// there, with the completion recorded where the page prints it: when this test changes, change
/// the page too.
@Suite(.leakChecked)
struct ConduitFoundationArticleTests {
  @Test func notificationsDecodedWithJSONDecoder() {
    let center = NotificationCenter()
    let forecastArrived = Notification.Name("ForecastArrived")

    var forecasts: [Forecast] = []
    var errors: [any Error] = []
    let cancellable = center.publisher(for: forecastArrived)
      .compactMap { $0.userInfo?["body"] as? Data }
      .decode(type: Forecast.self, decoder: JSONDecoder())
      .sink(
        receiveCompletion: { if case .failure(let error) = $0 { errors.append(error) } },
        receiveValue: { forecasts.append($0) })

    let body = Data(#"{"city":"Lisbon","temperature":21.5}"#.utf8)
    center.post(name: forecastArrived, object: nil, userInfo: ["body": body])
    #expect(forecasts == [Forecast(city: "Lisbon", temperature: 21.5)])
    #expect(errors.isEmpty)

    cancellable.cancel()
  }
}

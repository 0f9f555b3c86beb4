import Foundation

/// The JSON text of `value`, as Combine's coding of scheduler times is checked.
func json<Value: Encodable>(_ value: Value) throws -> String {
  let encoder = JSONEncoder()
  encoder.outputFormatting = .sortedKeys
  return String(decoding: try encoder.encode(value), as: UTF8.self)
}

/// `value` encoded and decoded again.
func roundTripped<Value: Codable>(_ value: Value) throws -> Value {
  try JSONDecoder().decode(Value.self, from: try JSONEncoder().encode(value))
}

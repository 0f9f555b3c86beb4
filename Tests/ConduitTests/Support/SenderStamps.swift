/// The values that the stress tests' senders send: each names its sender and its position in
/// that sender's run, so that a test can check the order each sender's values arrive in.
/// `stride` must exceed the number of values a sender sends.
let senderStride = 1_000

/// A value that names its sender and its position in that sender's run.
func stamp(_ sender: Int, _ index: Int, stride: Int = senderStride) -> Int { sender * stride + index }

/// Whether each sender's values arrive in the order sent: strictly increasing, and, when
/// `consecutive`, with no gap, from the sender's first value unless `fromTheFirst` is false (a
/// subscriber that joins while the senders send). Negative values are not from a sender.
func everySenderInOrder(
  _ values: [Int], consecutive: Bool, stride: Int = senderStride, fromTheFirst: Bool = true
) -> Bool {
  var last: [Int: Int] = [:]
  for value in values where value >= 0 {
    let sender = value / stride
    let index = value % stride
    if let previous = last[sender] ?? (fromTheFirst ? -1 : nil) {
      if consecutive ? index != previous + 1 : index <= previous { return false }
    }
    last[sender] = index
  }
  return true
}

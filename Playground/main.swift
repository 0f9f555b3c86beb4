import Conduit
import ConduitTesting

let subject = PassthroughSubject<Int, Never>()
var got: [Int] = []
let c = subject.sink { got.append($0) }
subject.send(1); subject.send(2)
print(got, Census.liveObjects)
c.cancel()
print(Census.liveObjects)
do {
  try withLeakCheck { tracker in
    final class Owner { var c: AnyCancellable?; var n = 0 }
    let o = tracker.track(Owner())
    o.c = subject.sink { o.n += $0 }
  }
} catch { print(error) }
let cvs = CurrentValueSubject<Int, Never>(5)
_ = cvs.sink { print("cvs", $0) }
var all: [Int] = []
let s = (0..<5).publisher.sink { all.append($0) }
print(all)

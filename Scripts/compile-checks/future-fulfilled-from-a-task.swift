// expect: compiles
// Combine's idiom for async work compiles: the promise is a `sending` parameter.
import Conduit

func compute() async -> Int { 42 }

@MainActor func makeFuture() -> Future<Int, Never> {
  Future { promise in Task { promise(.success(await compute())) } }
}

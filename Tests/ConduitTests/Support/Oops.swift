import Conduit

/// An error for tests in which only a failure's arrival matters, not which error it is.
struct Oops: Error, Equatable {}

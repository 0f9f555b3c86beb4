import Conduit

/// The error the parity suites fail their streams with when only its type matters.
struct ParityError: Error, Equatable {}

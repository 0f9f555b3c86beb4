import Conduit

/// The error the key-path maps' tests fail their upstreams with.
struct KeyPathTestError: Error, Equatable {}

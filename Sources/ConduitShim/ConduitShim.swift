// One import for code that builds on Apple platforms and elsewhere: Apple's Combine where it
// exists, Conduit and its Foundation integrations everywhere else. Conduit's API is Combine's, so
// the same source compiles against either; what Conduit adds beyond Combine is not part of the
// shim's promise, because on Apple platforms it is not there.
#if canImport(Combine)
  @_exported import Combine
#else
  @_exported import Conduit
  @_exported import ConduitFoundation
#endif

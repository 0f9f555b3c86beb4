// `import ConduitFoundation` brings Conduit with it, as `import Foundation` brings Combine's
// Foundation integrations on Apple platforms.
@_exported import Conduit

// On Linux, `URLSession` lives in FoundationNetworking. Code written for Apple's platforms names
// it after `import Foundation` alone; re-exporting it here keeps such code compiling with only
// `import Combine` changed to `import ConduitFoundation`.
#if canImport(FoundationNetworking)
  @_exported import FoundationNetworking
#endif

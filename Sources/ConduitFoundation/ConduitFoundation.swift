// `import ConduitFoundation` brings Conduit with it, as `import Foundation` brings Combine's
// Foundation integrations on Apple platforms.
@_exported import Conduit

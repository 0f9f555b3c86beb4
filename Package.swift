// swift-tools-version: 6.0
import PackageDescription

let package = Package(
  name: "Conduit",
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  products: [
    .library(name: "Conduit", targets: ["Conduit"]),
    .library(name: "ConduitTesting", targets: ["ConduitTesting"]),
    .library(name: "ConduitFoundation", targets: ["ConduitFoundation"]),
  ],
  targets: [
    .target(name: "Conduit"),
    .target(name: "ConduitTesting", dependencies: ["Conduit"]),
    // Foundation's integrations live apart, so that a server can use Conduit without Foundation.
    .target(name: "ConduitFoundation", dependencies: ["Conduit"]),
    .executableTarget(
      name: "Playground", dependencies: ["Conduit", "ConduitTesting", "ConduitFoundation", "LoopbackHTTP"],
      path: "Playground"),
    .executableTarget(name: "Benchmarks", dependencies: ["Conduit", "ConduitTesting", "ConduitFoundation"]),
    .testTarget(name: "ConduitTests", dependencies: ["Conduit", "ConduitTesting"]),
    .testTarget(name: "ConduitTestingTests", dependencies: ["Conduit", "ConduitTesting"]),
    .testTarget(name: "ConduitFoundationTests", dependencies: ["ConduitFoundation", "ConduitTesting", "LoopbackHTTP"]),
    // A small HTTP/1.1 server on the loopback address, for the URLSession tests and the Playground.
    .target(name: "LoopbackHTTP", path: "Tests/Fixtures/LoopbackHTTP"),
    // A stand-in for a third-party Combine extension library, and the tests that import it beside
    // Conduit: Conduit's additions to Combine must give way to such a library's.
    .target(
      name: "ThirdPartyShareReplay", dependencies: ["Conduit"], path: "Tests/Fixtures/ThirdPartyShareReplay"),
    .testTarget(
      name: "ThirdPartyExtensionTests", dependencies: ["Conduit", "ConduitTesting", "ThirdPartyShareReplay"]),
  ],
  swiftLanguageModes: [.v6]
)

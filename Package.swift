// swift-tools-version: 6.0
import PackageDescription

/// Where Apple's Combine is missing, so that `ConduitShim` is backed by Conduit.
let nonApplePlatforms: [Platform] = [.linux, .windows, .android, .wasi, .openbsd]

/// The library modules are compiled in Swift 5 language mode with every Swift 6 checking feature on,
/// so that the compiler checks them as strictly as Swift 6 does (each finding is a warning, and CI
/// fails on any warning), while Swift 6 code that calls them treats them as Combine's own module is
/// treated: it inserts SE-0423's isolation check into every actor-isolated closure it passes, so
/// that such a closure traps when an operator calls it off its actor instead of racing. Closures
/// that are not isolated (`@Sendable` ones, references to nonisolated functions) get no check.
let swift6Checking: [SwiftSetting] = [
  .swiftLanguageMode(.v5),
  .enableUpcomingFeature("StrictConcurrency"),
  .enableUpcomingFeature("ConciseMagicFile"),
  .enableUpcomingFeature("ForwardTrailingClosures"),
  .enableUpcomingFeature("ImplicitOpenExistentials"),
  .enableUpcomingFeature("BareSlashRegexLiterals"),
  .enableUpcomingFeature("DeprecateApplicationMain"),
  .enableUpcomingFeature("DisableOutwardActorInference"),
  .enableUpcomingFeature("IsolatedDefaultValues"),
  .enableUpcomingFeature("GlobalConcurrency"),
  .enableUpcomingFeature("InferSendableFromCaptures"),
  .enableUpcomingFeature("GlobalActorIsolatedTypesUsability"),
  .enableUpcomingFeature("RegionBasedIsolation"),
  .enableUpcomingFeature("DynamicActorIsolation"),
  .enableUpcomingFeature("NonfrozenEnumExhaustivity"),
]

let package = Package(
  name: "Conduit",
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  products: [
    .library(name: "Conduit", targets: ["Conduit"]),
    .library(name: "ConduitTesting", targets: ["ConduitTesting"]),
    .library(name: "ConduitFoundation", targets: ["ConduitFoundation"]),
    .library(name: "ConduitSchedulers", targets: ["ConduitSchedulers"]),
    .library(name: "ConduitShim", targets: ["ConduitShim"]),
  ],
  targets: [
    .target(name: "Conduit", swiftSettings: swift6Checking),
    .target(name: "ConduitTesting", dependencies: ["Conduit"], swiftSettings: swift6Checking),
    // Foundation's integrations live apart, so that a server can use Conduit without Foundation.
    .target(name: "ConduitFoundation", dependencies: ["Conduit"], swiftSettings: swift6Checking),
    // What Conduit adds beyond Combine under names that widely used Combine libraries declare too
    // (combine-schedulers' `AnyScheduler`, `AnySchedulerOf`, `Publishers.Timer`): opt-in, so that
    // `import Conduit` never makes such a library's names ambiguous.
    .target(name: "ConduitSchedulers", dependencies: ["Conduit"], swiftSettings: swift6Checking),
    // Apple's Combine where it exists, Conduit and ConduitFoundation elsewhere: Apple platforms
    // never build Conduit through the shim.
    .target(
      name: "ConduitShim",
      dependencies: [
        .target(name: "Conduit", condition: .when(platforms: nonApplePlatforms)),
        .target(name: "ConduitFoundation", condition: .when(platforms: nonApplePlatforms)),
      ]),
    .executableTarget(
      name: "Playground",
      dependencies: ["Conduit", "ConduitTesting", "ConduitFoundation", "ConduitSchedulers", "LoopbackHTTP"],
      path: "Playground"),
    .executableTarget(name: "Benchmarks", dependencies: ["Conduit", "ConduitTesting", "ConduitFoundation"]),
    // A server-shaped load for as long as you give it (`Scripts/soak`), checking for lost and repeated
    // values, leaked objects and growing memory: not part of `swift test`.
    .executableTarget(name: "Soak", dependencies: ["Conduit"]),
    .testTarget(name: "ConduitTests", dependencies: ["Conduit", "ConduitTesting", "ConduitSchedulers"]),
    .testTarget(name: "ConduitTestingTests", dependencies: ["Conduit", "ConduitTesting", "ConduitSchedulers"]),
    .testTarget(name: "ConduitSchedulersTests", dependencies: ["ConduitSchedulers", "ConduitTesting"]),
    // Imports only the shim (and, where Conduit is the backend, the leak checks), so it fails if
    // the shim stops re-exporting any of Combine's API it exercises.
    .testTarget(
      name: "ConduitShimTests",
      dependencies: [
        "ConduitShim", "LoopbackHTTP",
        .target(name: "ConduitTesting", condition: .when(platforms: nonApplePlatforms)),
      ]),
    .testTarget(name: "ConduitFoundationTests", dependencies: ["ConduitFoundation", "ConduitTesting", "LoopbackHTTP"]),
    // A small HTTP/1.1 server on the loopback address, for the URLSession tests and the Playground.
    .target(name: "LoopbackHTTP", path: "Tests/Fixtures/LoopbackHTTP"),
    // A stand-in for a third-party Combine extension library, and the tests that import it beside
    // Conduit: Conduit's additions to Combine must give way to such a library's.
    .target(
      name: "ThirdPartyShareReplay", dependencies: ["Conduit"], path: "Tests/Fixtures/ThirdPartyShareReplay"),
    .testTarget(
      name: "ThirdPartyExtensionTests", dependencies: ["Conduit", "ConduitTesting", "ThirdPartyShareReplay"]),
    // A stand-in for combine-schedulers and CombineExt: it declares `AnyScheduler`, `AnySchedulerOf`
    // and `Publishers.Timer` of its own, which must not clash with anything `import Conduit` declares.
    .target(
      name: "ThirdPartySchedulers", dependencies: ["Conduit"], path: "Tests/Fixtures/ThirdPartySchedulers"),
    .testTarget(
      name: "ThirdPartySchedulersTests", dependencies: ["Conduit", "ConduitTesting", "ThirdPartySchedulers"]),
  ],
  swiftLanguageModes: [.v6]
)

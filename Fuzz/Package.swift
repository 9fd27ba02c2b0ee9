// swift-tools-version:6.0
// Fuzz targets for wiretally (libFuzzer). A separate package so the main package's build and tests
// are unaffected. Build and run with `scripts/fuzz TARGET SECONDS` (see README.md).
import Foundation
import PackageDescription

/// The root package's identity: the name of the folder it is checked out in (a path dependency is
/// known by its last path component, lower-cased), whatever that folder is called.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .lastPathComponent.lowercased()

// Every target reads wiretally's `package`/internal types (`@testable import WireTally`): scripts/fuzz builds
// with `-enable-testing`.
let package = Package(
    name: "wiretally-fuzz",
    dependencies: [.package(path: "..")],
    targets: [
        .target(name: "FuzzDriver", path: "Sources/FuzzDriver"),
        .executableTarget(
            name: "FuzzCapture", dependencies: ["FuzzDriver", .product(name: "WireTally", package: root)],
            path: "Sources/FuzzCapture"
        ),
        .executableTarget(
            name: "FuzzHTTP", dependencies: ["FuzzDriver", .product(name: "WireTally", package: root)],
            path: "Sources/FuzzHTTP"
        ),
        .executableTarget(
            name: "FuzzHTTP3", dependencies: ["FuzzDriver", .product(name: "WireTally", package: root)],
            path: "Sources/FuzzHTTP3"
        ),
        .executableTarget(
            name: "FuzzQUICPackets", dependencies: ["FuzzDriver", .product(name: "WireTally", package: root)],
            path: "Sources/FuzzQUICPackets"
        ),
    ]
)

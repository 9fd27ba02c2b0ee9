// swift-tools-version:6.0
// Fuzz targets for wiretally (libFuzzer). A separate package so the main package's build and tests
// are unaffected. Build and run with `scripts/fuzz TARGET SECONDS` (see README.md).
import PackageDescription

let package = Package(
    name: "wiretally-fuzz",
    dependencies: [.package(path: "..")],
    targets: [
        .executableTarget(
            name: "FuzzCapture", dependencies: [.product(name: "WireTally", package: "wt-fuzz")],
            path: "Sources/FuzzCapture"
        ),
        .executableTarget(
            name: "FuzzHTTP", dependencies: [.product(name: "WireTally", package: "wt-fuzz")],
            path: "Sources/FuzzHTTP"
        ),
    ]
)

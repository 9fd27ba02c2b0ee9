// swift-tools-version:6.0
import PackageDescription

// wiretally is this repository, two folders up; SwiftPM names a path dependency after its folder.
let wiretallyPath = "../.."
let wiretallyIdentity = Context.packageDirectory.split(separator: "/").dropLast(2).last.map { $0.lowercased() } ?? "wiretally"

let package = Package(
    name: "MonitorCheck",
    dependencies: [.package(path: wiretallyPath)],
    targets: [
        // The app side: a tiny HTTP/1.1 client with the byte-counting monitor an app would ship.
        .target(name: "MonitorCheck", path: "Sources/MonitorCheck"),
        // The check: runs requests through the client, captures them, compares the monitor with the wire.
        .testTarget(
            name: "MonitorCheckTests",
            dependencies: ["MonitorCheck", .product(name: "WireTally", package: wiretallyIdentity)],
            path: "Tests/MonitorCheckTests"),
    ]
)

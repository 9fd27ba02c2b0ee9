// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "wiretally",
    products: [
        .library(name: "WireTally", targets: ["WireTally"]),
        .executable(name: "wiretally", targets: ["wiretally"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        // HPACK (HTTP/2 header blocks) and the ByteBuffer its decoder reads
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // `swift package generate-documentation --target WireTally` (the DocC catalog in Sources/WireTally/WireTally.docc)
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(name: "CPcap", path: "Sources/CPcap", pkgConfig: "libpcap", providers: [.apt(["libpcap-dev"])]),
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // content codings br and zstd (decoding bodies, and re-encoding them for the `rebuilt` estimator)
        .systemLibrary(name: "CBrotli", path: "Sources/CBrotli", pkgConfig: "libbrotlidec", providers: [.apt(["libbrotli-dev"])]),
        .systemLibrary(name: "CZstd", path: "Sources/CZstd", pkgConfig: "libzstd", providers: [.apt(["libzstd-dev"])]),
        .target(
            name: "WireTally",
            dependencies: [
                "CPcap", "CZlib", "CBrotli", "CZstd", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),  // AES-CBC (TLS 1.2 CBC suites)
                .product(name: "NIOHPACK", package: "swift-nio-http2"), .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Sources/WireTally",
            swiftSettings: [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]
        ),
        .executableTarget(
            name: "wiretally",
            dependencies: ["WireTally", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Sources/wiretally",
            exclude: ["no-exported-symbols.map"],
            // --static-swift-stdlib links with -export-dynamic: every symbol of every package (25,000) would
            // be exported, and the runtime's dladdr at start-up scans them all. Nothing loads into wiretally.
            linkerSettings: [.unsafeFlags(["-Xlinker", "--version-script=\(Context.packageDirectory)/Sources/wiretally/no-exported-symbols.map"])]
        ),
        .testTarget(
            name: "WireTallyTests",
            dependencies: [
                "WireTally", "CPcap", "CZlib", "CBrotli", "CZstd",
                // re-sealing recorded CBC records (TLSRecordCipherRecordingTests): AES-CBC and HMAC
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "_CryptoExtras", package: "swift-crypto"),
                // HTTP/2 header blocks for the synthetic HTTP/2 streams (HPACKEncoder)
                .product(name: "NIOHPACK", package: "swift-nio-http2"), .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Tests/WireTallyTests",
            resources: [.copy("HAR/har-1.2.schema.json"), .copy("HTTP3/Fixtures")]
        ),
        // The library's public API only (plain `import WireTally`): a change that breaks users breaks this.
        .testTarget(name: "WireTallyAPITests", dependencies: ["WireTally"], path: "Tests/WireTallyAPITests"),
    ]
)

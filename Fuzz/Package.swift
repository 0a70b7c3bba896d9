// swift-tools-version: 6.1
import PackageDescription

// libFuzzer targets for ContactBox's parsers of outside input. A package of its own so that the main package's
// `swift build` and `swift test` never see them: each target has no `main` (libFuzzer's comes with
// `--sanitize=fuzzer`) and would not link there. Build and run with Deploy/fuzz.sh; Docs/fuzzing.md.
let package = Package(
    name: "ContactBoxFuzz",
    dependencies: [
        .package(name: "ContactBox", path: ".."),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        // What the targets share: an invariant check that says what failed.
        .target(name: "FuzzSupport"),
        .executableTarget(
            name: "FuzzVCard", dependencies: ["FuzzSupport", .product(name: "VCard", package: "ContactBox")]),
        .executableTarget(
            name: "FuzzMultistatus", dependencies: ["FuzzSupport", .product(name: "CardDAV", package: "ContactBox")]),
        .executableTarget(
            name: "FuzzTOML", dependencies: ["FuzzSupport", .product(name: "Config", package: "ContactBox")]),
        .executableTarget(
            name: "FuzzStatusRequest",
            dependencies: [
                "FuzzSupport", .product(name: "StatusServer", package: "ContactBox"),
                .product(name: "Logging", package: "swift-log"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)

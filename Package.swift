// swift-tools-version: 6.1
import PackageDescription

// Release builds: swift build -c release --static-swift-stdlib (see Deploy/).
// Modules and what each may import: ../shared/DESIGN.md, "Modules".
let package = Package(
    name: "ContactBox",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "contactbox", targets: ["contactbox"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0")
    ],
    targets: [
        // C system libraries: one shim module each (STYLE.md 1).
        .systemLibrary(
            name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "CCrypto", path: "Sources/CCrypto", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]),
        // glibc's malloc.h: memory tuning for a process that must stay small (no library to link).
        .systemLibrary(name: "CMalloc", path: "Sources/CMalloc"),

        .target(name: "VCard", dependencies: ["CCrypto"]),
        .target(name: "SQLite", dependencies: ["CSQLite"]),
        .target(name: "ContactStore", dependencies: ["SQLite", "VCard"]),
        .executableTarget(
            name: "contactbox",
            dependencies: [
                "CMalloc", "ContactStore", "VCard",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            plugins: ["BuildInfo"]),
        .plugin(name: "BuildInfo", capability: .buildTool()),

        .testTarget(name: "VCardTests", dependencies: ["VCard"], resources: [.copy("Corpus")]),
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "SQLiteTests", dependencies: ["SQLite", "TestSupport"]),
        .testTarget(name: "ContactStoreTests", dependencies: ["ContactStore", "SQLite", "TestSupport", "VCard"]),
        .testTarget(name: "ContactboxTests", dependencies: ["contactbox"]),
    ],
    swiftLanguageModes: [.v6]
)

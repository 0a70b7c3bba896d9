// swift-tools-version: 6.1
import PackageDescription

// Release builds: swift build -c release --static-swift-stdlib (see Deploy/).
// Modules and the imports allowed between them: Docs/architecture.md.
let logging: Target.Dependency = .product(name: "Logging", package: "swift-log")

let package = Package(
    name: "ContactBox",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "contactbox", targets: ["contactbox"]),
        .executable(name: "contactbox-remote", targets: ["contactbox-remote"]),
        // For the fuzz targets in Fuzz/, a package of its own that sees only products. Nothing here uses them, and
        // a library product is built only for a product that depends on it.
        .library(name: "VCard", targets: ["VCard"]),
        .library(name: "CardDAV", targets: ["CardDAV"]),
        .library(name: "Config", targets: ["Config"]),
        .library(name: "StatusServer", targets: ["StatusServer"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        // C system libraries: one shim module each (Docs/contributing.md, rule 1).
        .systemLibrary(
            name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "CCrypto", path: "Sources/CCrypto", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]),
        .systemLibrary(
            name: "CCurl", path: "Sources/CCurl", pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(
            name: "CPSL", path: "Sources/CPSL", pkgConfig: "libpsl", providers: [.apt(["libpsl-dev"])]),
        .systemLibrary(
            name: "CXML2", path: "Sources/CXML2", pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]),
        .systemLibrary(
            name: "CGPIOD", path: "Sources/CGPIOD", pkgConfig: "libgpiod",
            providers: [.apt(["libgpiod-dev"])]),
        .systemLibrary(
            name: "CMicroHTTPD", path: "Sources/CMicroHTTPD", pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]),
        // glibc's malloc.h: memory tuning for a process that must stay small (no library to link).
        .systemLibrary(name: "CMalloc", path: "Sources/CMalloc"),
        // signalfd, eventfd, rtnetlink and pthread_timedjoin_np for the daemon's main loop (headers only).
        .systemLibrary(name: "CLinux", path: "Sources/CLinux"),

        // What every module needs from the system: error texts, small files, descriptors, the clocks, UTC dates, whole
        // milliseconds or seconds of a Duration; and a sync run's counts, which the store and the status server (that
        // imports nothing of the store) both name.
        .target(name: "SystemSupport"),
        .target(name: "VCard", dependencies: ["CCrypto", "SystemSupport"]),
        .target(name: "SQLite", dependencies: ["CSQLite", "SystemSupport"]),
        .target(name: "ContactStore", dependencies: ["SQLite", "SystemSupport", "VCard"]),
        .target(
            name: "HTTP",
            dependencies: ["CCurl", "CPSL", "SystemSupport", logging]),
        // OAuth 2.0 for CardDAV servers that take bearer tokens (Google): sign-in with PKCE, tokens renewed.
        .target(name: "OAuth", dependencies: ["CCrypto", "HTTP", "SystemSupport", logging]),
        .target(
            name: "CardDAV",
            dependencies: ["HTTP", "CXML2", "SystemSupport", "VCard", logging]),
        // The engine: it knows a remote only as an `AddressBook`.
        .target(name: "Sync", dependencies: ["ContactStore", "SystemSupport", "VCard", logging]),
        // The address books (CardDAV, a vCard folder) and the factory that opens a configured remote and syncs it.
        .target(
            name: "Remotes",
            dependencies: [
                "CardDAV", "CMalloc", "Config", "ContactStore", "HTTP", "OAuth", "Sync", "SystemSupport", "VCard",
                logging,
            ]),
        .target(name: "Config", dependencies: ["SystemSupport"]),
        // Text from outside made safe to show: control characters written as `\u{1B}` (terminal, journal, page).
        .target(name: "SafeText"),
        // The LEDs and the button: patterns, gestures, the libgpiod and the simulated backends.
        .target(name: "FrontPanel", dependencies: ["CGPIOD", "SystemSupport"]),
        // The status page, its JSON and the Prometheus metrics, over libmicrohttpd.
        .target(
            name: "StatusServer",
            dependencies: ["CCrypto", "CMicroHTTPD", "SafeText", "SystemSupport", logging]),
        // The household's contacts for the page and the JSON API: the status server's ContactsBackend over the store.
        .target(
            name: "StoreContacts",
            dependencies: ["ContactStore", "SQLite", "SafeText", "StatusServer", "SystemSupport", "VCard"]),
        .target(
            name: "Appliance",
            dependencies: [
                "Sync", "Remotes", "ContactStore", "Config", "FrontPanel", "OAuth", "SafeText", "StatusServer",
                "SQLite", "StoreContacts", "SystemSupport",
                "CLinux", "CMalloc",
                logging,
            ]),
        // What both executables share: terminal output, exit codes, the store and config options, memory tuning.
        .target(
            name: "CLISupport",
            dependencies: [
                "CMalloc", "Config", "ContactStore", "SystemSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                logging,
            ]),
        // Two executables, as git keeps libcurl out of git itself (git-remote-http): `contactbox` works on the
        // store and never loads libcurl or libxml2, whose dependency trees cost megabytes of resident memory at
        // start-up on Debian (Docs/architecture.md, "Modules"); `contactbox sync` and `discover` run
        // `contactbox-remote`.
        .executableTarget(
            name: "contactbox",
            dependencies: [
                "CLISupport", "Config", "ContactStore", "SafeText", "SystemSupport", "VCard",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            plugins: ["BuildInfo"]),
        .executableTarget(
            name: "contactbox-remote",
            dependencies: [
                "Appliance", "CardDAV", "CLISupport", "Config", "ContactStore", "OAuth", "Remotes", "SafeText",
                "StatusServer", "Sync", "SystemSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                logging,
            ],
            plugins: ["BuildInfo"]),
        .plugin(name: "BuildInfo", capability: .buildTool()),

        .testTarget(name: "VCardTests", dependencies: ["SystemSupport", "VCard"], resources: [.copy("Corpus")]),
        // oauth_standin.py: the OAuth 2.0 server the tests start with Python (OAuthStandIn.swift), not a resource.
        .target(name: "TestSupport", path: "Tests/TestSupport", exclude: ["oauth_standin.py"]),
        .testTarget(
            name: "HTTPTests",
            dependencies: ["HTTP", "SystemSupport", "TestSupport", logging],
            exclude: ["Fixtures"]),
        .testTarget(
            name: "CardDAVTests",
            dependencies: [
                "CardDAV", "HTTP", "SystemSupport", "TestSupport", "VCard",
                logging,
            ]),
        .testTarget(
            name: "SyncTests",
            dependencies: [
                "CardDAV", "ContactStore", "HTTP", "Remotes", "Sync", "SystemSupport", "TestSupport", "VCard",
                logging,
            ]),
        .testTarget(
            name: "RemotesTests",
            dependencies: [
                "CardDAV", "Config", "ContactStore", "HTTP", "OAuth", "Remotes", "Sync", "SystemSupport", "TestSupport",
                "VCard", logging,
            ]),
        .testTarget(
            name: "ApplianceTests",
            dependencies: [
                "Appliance", "Config", "ContactStore", "FrontPanel", "Remotes", "SQLite", "StatusServer", "Sync",
                "SystemSupport",
                "TestSupport", "VCard",
                logging,
            ]),
        .testTarget(name: "OAuthTests", dependencies: ["OAuth", "SystemSupport"]),
        .testTarget(
            name: "StoreContactsTests",
            dependencies: [
                "ContactStore", "SQLite", "StatusServer", "StoreContacts", "SystemSupport", "TestSupport", "VCard",
            ]),
        .testTarget(name: "ConfigTests", dependencies: ["Config", "SystemSupport", "TestSupport"]),
        .testTarget(name: "FrontPanelTests", dependencies: ["FrontPanel", "TestSupport"]),
        .testTarget(name: "SafeTextTests", dependencies: ["SafeText"]),
        .testTarget(name: "SystemSupportTests", dependencies: ["SystemSupport"]),
        .testTarget(
            name: "StatusServerTests",
            dependencies: [
                "SafeText", "StatusServer", "SystemSupport", "TestSupport",
                logging,
            ]),
        // The deployment files (systemd unit, install script) checked with the tools that will read them.
        .testTarget(name: "DeployTests", dependencies: ["TestSupport"]),
        // The executables too: RestoreCommandSyncTests runs `contactbox` against a real Radicale.
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "Sync", "Remotes", "CardDAV", "HTTP", "ContactStore", "SystemSupport", "VCard", "TestSupport",
                "contactbox",
                "contactbox-remote",
                logging,
            ]),
        .testTarget(name: "SQLiteTests", dependencies: ["CSQLite", "SQLite", "TestSupport"]),
        .testTarget(
            name: "ContactStoreTests",
            dependencies: ["ContactStore", "SQLite", "SystemSupport", "TestSupport", "VCard"]),
        .testTarget(
            name: "ContactboxTests", dependencies: ["contactbox", "contactbox-remote", "TestSupport"],
            exclude: ["Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)

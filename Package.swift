// swift-tools-version:6.1
import PackageDescription

// Layers, bottom-up (docs/architecture.md): ForceJSON (JSON values) and SalesforceTime (dates) ->
// SmartStore (soups on SQLite) -> MobileSync (the engine, no network) and ForceAPI (REST on libcurl)
// -> ContactsApp (the app's state, no terminal) -> TerminalUI (over CNcursesw) -> ForcetermServices
// (what the commands do) -> ForcetermCommands (only its commands) -> the forceterm executable (one line).
// localorg and smartstore-tool are built the same way; forceterm-multicall holds all three. localorg sits beside them
// and shares ForceJSON and SalesforceTime.
// forceterm's own SQLite (SQLite3 Multiple Ciphers: stores encrypted in SQLCipher 4's format), built
// by `make` into .build-sqlite3mc/lib (vendor/sqlite3mc/build.sh). Its folder comes first on the
// link path, so GRDB's `-lsqlite3` finds it rather than the system's, and in the RUNPATH:
// ../lib/forceterm beside the binary first (`make install`, the tarball and the .deb ship it
// there), then the build folder for builds here. A binary linked without it still runs, and refuses to open an encrypted store.
let privateSQLite = Context.packageDirectory + "/.build-sqlite3mc/lib"
// No target of this package asks pkg-config for its flags: SwiftPM would put the -L/usr/lib/… it
// prints ahead of this -L, and GRDB's `-lsqlite3` would find the system's library first.
let privateSQLiteLinking: [LinkerSetting] = [
    .unsafeFlags([
        "-L" + privateSQLite, "-Xlinker", "-rpath", "-Xlinker", "$ORIGIN/../lib/forceterm",
        "-Xlinker", "-rpath", "-Xlinker", privateSQLite,
    ])
]

let strictConcurrency: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

let package = Package(
    name: "forceterm",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "forceterm", targets: ["forceterm"]),
        .executable(name: "smartstore-tool", targets: ["smartstore-tool"]),
        // What the package ships (make install, make dist): the three commands in one binary.
        .executable(name: "forceterm-multicall", targets: ["forceterm-multicall"]),
        .library(name: "SmartStore", targets: ["SmartStore"]),
        .executable(name: "localorg", targets: ["localorg"]),
        .library(name: "LocalOrg", targets: ["LocalOrg"]),
        .library(name: "ForceAPI", targets: ["ForceAPI"]),
        .library(name: "MobileSync", targets: ["MobileSync"]),
        .library(name: "ForcetermServices", targets: ["ForcetermServices"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        // forceterm import: reading CSV files other programs wrote (quoting, line breaks in cells).
        .package(url: "https://github.com/swiftcsv/SwiftCSV", from: "0.10.0"),
        // config.toml: the user's keys, colours and list settings (toml++ underneath, with line numbers).
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        // localorg: HTTPS server, local certificate authority, logging.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        // Hummingbird's own lifecycle: the trainer page's live feed ends when the server stops.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // localorg: a frame handler on HTTP/2 streams (END_STREAM on a response's last frame),
        // placed before the HTTP/2 codec Hummingbird uses.
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/adam-fowler/compress-nio", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .target(
            name: "ForceJSON",
            dependencies: [.product(name: "OrderedCollections", package: "swift-collections")],
            swiftSettings: strictConcurrency),
        // Salesforce's date and datetime forms, for the client and for localorg alike.
        .target(
            name: "SalesforceTime",
            swiftSettings: strictConcurrency),
        // CSV read and written the same way by forceterm's import/export and localorg's user lists.
        .target(
            name: "CSVTable",
            dependencies: [.product(name: "SwiftCSV", package: "SwiftCSV")],
            swiftSettings: strictConcurrency),
        // Salesforce record ids: their checksum and key prefixes, for localorg and the importer alike.
        .target(
            name: "SalesforceIds",
            swiftSettings: strictConcurrency),
        // SOQL's grammar: localorg runs the queries it parses, and forceterm checks a subscription's
        // WHERE condition with it offline before storing it.
        .target(
            name: "SOQLSyntax",
            dependencies: ["SalesforceTime"],
            swiftSettings: strictConcurrency),
        .target(
            name: "SmartStore",
            dependencies: [
                "ForceJSON",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: strictConcurrency,
            linkerSettings: privateSQLiteLinking),
        // libcurl (Debian: libcurl4-openssl-dev) with a shim for its variadic calls.
        .systemLibrary(
            name: "CCurl",
            path: "Sources/CCurl",
            providers: [.apt(["libcurl4-openssl-dev"])]),
        // The kernel's key retention service (keyctl), for a store key kept unlocked per login session.
        .systemLibrary(name: "CKeyring", path: "Sources/CKeyring"),
        // zlib (Debian: zlib1g-dev), for gzip-compressed request bodies.
        .systemLibrary(
            name: "CZlib",
            path: "Sources/CZlib",
            providers: [.apt(["zlib1g-dev"])]),
        .target(
            name: "ForceAPI",
            dependencies: ["ForceJSON", "SalesforceTime", "CCurl", "CZlib", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strictConcurrency),
        // The sync engine: talks to the server only through its own `SyncRemote` protocol, so it
        // links no libcurl; ForcetermServices' `ForceClientRemote` adapts ForceAPI's client to it.
        .target(
            name: "MobileSync",
            dependencies: ["SmartStore", "ForceJSON", "SalesforceTime", "SalesforceIds", "SOQLSyntax"],
            swiftSettings: strictConcurrency),
        .systemLibrary(name: "CNcursesw"),
        .target(
            name: "ContactsApp",
            dependencies: ["SmartStore", "ForceJSON", "MobileSync", "SalesforceIds", "CSVTable"],
            swiftSettings: strictConcurrency),
        .target(
            name: "TerminalUI",
            dependencies: ["CNcursesw", "ContactsApp", "MobileSync", "SmartStore"],
            swiftSettings: strictConcurrency),
        // What forceterm's commands do, with no command-line parsing: the session, the sync run, the
        // record catalogue, settings, files written whole, the demo's localorg.
        .target(
            name: "ForcetermServices",
            dependencies: [
                "SmartStore", "TerminalUI", "ContactsApp", "ForceJSON", "ForceAPI", "MobileSync", "CKeyring",
                .product(name: "TOMLKit", package: "TOMLKit"),
                // The store key wrapped by the user's passcode: AES-GCM, and PBKDF2 as SQLCipher derives keys.
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: strictConcurrency),
        // forceterm's commands: ArgumentParser types over ForcetermServices. Each executable is a
        // line that runs its command, so forceterm-multicall can hold all three.
        .target(
            name: "ForcetermCommands",
            dependencies: [
                "ForcetermServices", "SmartStore", "TerminalUI", "ContactsApp", "ForceJSON", "ForceAPI", "MobileSync",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictConcurrency),
        .executableTarget(name: "forceterm", dependencies: ["ForcetermCommands"], swiftSettings: strictConcurrency),
        .executableTarget(name: "smartstore-tool", dependencies: ["SmartStoreToolCommands"], swiftSettings: strictConcurrency),
        .executableTarget(name: "localorg", dependencies: ["LocalOrgCommands"], swiftSettings: strictConcurrency),
        // One binary for the package: forceterm, localorg or smartstore-tool by the name it runs as.
        .executableTarget(
            name: "forceterm-multicall",
            dependencies: ["ForcetermCommands", "LocalOrgCommands", "SmartStoreToolCommands"],
            swiftSettings: strictConcurrency),
        .target(
            name: "SmartStoreToolCommands",
            dependencies: [
                "SmartStore", "ForceJSON", "ForcetermServices",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictConcurrency),
        .target(
            name: "LocalOrg",
            dependencies: [
                "ForceJSON", "SalesforceTime", "SalesforceIds", "SOQLSyntax",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHTTPTypesHTTP2", package: "swift-nio-extras"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictConcurrency,
            linkerSettings: privateSQLiteLinking),
        .target(
            name: "LocalOrgCommands",
            dependencies: [
                "LocalOrg", "ForceJSON", "SalesforceTime", "CSVTable",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictConcurrency),
        // `make bench-sync`: the sync engine against a real localorg (starts it through LocalOrgProcess).
        .executableTarget(
            name: "sync-bench",
            dependencies: [
                "MobileSync", "SmartStore", "ForceJSON", "ForceAPI", "ForcetermServices", "LocalOrgProcess",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictConcurrency),
        .testTarget(name: "SOQLSyntaxTests", dependencies: ["SOQLSyntax"]),
        .testTarget(
            name: "LocalOrgTests",
            dependencies: ["LocalOrg", "SOQLSyntax", "ForceJSON", "SalesforceTime", "LocalOrgProcess", .product(name: "X509", package: "swift-certificates")]),
        // Test support: starts the real localorg binary; shared by the ForceAPI and CLI tests.
        .target(
            name: "LocalOrgProcess",
            path: "Tests/LocalOrgProcess"),
        .testTarget(
            name: "ForceAPITests",
            dependencies: ["ForceAPI", "ForceJSON", "SalesforceTime", "LocalOrgProcess"]),
        .testTarget(
            name: "SalesforceTimeTests",
            dependencies: ["SalesforceTime"]),
        .testTarget(
            name: "ForceJSONTests",
            dependencies: ["ForceJSON", .product(name: "PropertyBased", package: "swift-property-based")]),
        .testTarget(
            name: "SmartStoreTests",
            dependencies: [
                "SmartStore", "ForceJSON",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]),
        .testTarget(
            name: "MobileSyncTests",
            dependencies: [
                "MobileSync", "SmartStore", "ForceJSON", "ForceAPI", "ForcetermServices", "LocalOrgProcess",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]),
        .testTarget(
            name: "TerminalUITests",
            dependencies: ["TerminalUI", "ContactsApp", "SmartStore", "ForceJSON", "MobileSync"],
            exclude: ["Snapshots"]),
        .testTarget(
            name: "ContactsAppTests",
            dependencies: ["ContactsApp", "SmartStore", "ForceJSON", "MobileSync", "SalesforceIds", "LocalOrgProcess"]),
        .testTarget(
            name: "ForcetermServicesTests",
            dependencies: ["ForcetermServices", "ContactsApp", "MobileSync", "SmartStore", "ForceJSON", "ForceAPI"]),
        .testTarget(
            name: "ForcetermCLITests",
            dependencies: ["SmartStore", "ForceJSON", "MobileSync", "LocalOrgProcess"]),
    ]
)

// `make dist` only: ICU's data without what forceterm never reads (vendor/icu-data/README.md).
// FORCETERM_ICU_DATA names the filtered package vendor/icu-data/build.sh made, whose file name
// starts with the symbol ICU looks for (icudt76_dat-HASH.dat); the object defining it is linked
// into the one binary before the toolchain's copy is searched, so that copy stays out.
if let icuData = Context.environment["FORCETERM_ICU_DATA"], let name = icuData.split(separator: "/").last,
    let symbol = name.split(separator: "-").first
{
    package.targets.append(
        .target(
            name: "FilteredICUData", path: "vendor/icu-data/target",
            cSettings: [.define("ICU_DATA_FILE", to: "\"\(icuData)\""), .define("ICU_DATA_SYMBOL", to: String(symbol))]))
    for target in package.targets where target.name == "forceterm-multicall" {
        target.dependencies.append("FilteredICUData")
    }
}

// `make fuzz` only: libFuzzer on localorg's request handling. The harness has no main (libFuzzer's
// is linked in), so it exists only when FORCETERM_FUZZ is set, with the code under test
// instrumented for coverage and AddressSanitizer.
if Context.environment["FORCETERM_FUZZ"] != nil {
    let fuzzing: [SwiftSetting] = [.unsafeFlags(["-sanitize=fuzzer,address"])]
    for target in package.targets
    where ["LocalOrg", "SOQLSyntax", "ForceJSON", "SalesforceTime", "SalesforceIds", "ContactsApp", "CSVTable", "MobileSync"].contains(target.name) {
        target.swiftSettings = (target.swiftSettings ?? []) + fuzzing
    }
    package.products.append(.executable(name: "localorg-fuzz", targets: ["localorg-fuzz"]))
    package.targets.append(.target(name: "LocalOrgFuzzDriver", path: "Fuzz/LocalOrgFuzzDriver"))
    package.targets.append(
        .executableTarget(
            name: "localorg-fuzz",
            dependencies: ["LocalOrg", "ForceJSON", "LocalOrgFuzzDriver"],
            path: "Fuzz/LocalOrgFuzz",
            swiftSettings: fuzzing + [.unsafeFlags(["-parse-as-library"])],
            linkerSettings: [.unsafeFlags(["-sanitize=fuzzer,address"])]))
    // The vCard, CSV and JSON importers, on files.
    package.products.append(.executable(name: "import-fuzz", targets: ["import-fuzz"]))
    package.targets.append(
        .executableTarget(
            name: "import-fuzz",
            dependencies: ["ContactsApp", "LocalOrgFuzzDriver"],
            path: "Fuzz/ImportFuzz",
            swiftSettings: fuzzing + [.unsafeFlags(["-parse-as-library"])],
            linkerSettings: [.unsafeFlags(["-sanitize=fuzzer,address"])]))
    // A subscription's condition, as `forceterm subscribe --where` checks it.
    package.products.append(.executable(name: "condition-fuzz", targets: ["condition-fuzz"]))
    package.targets.append(
        .executableTarget(
            name: "condition-fuzz",
            dependencies: ["MobileSync", "SOQLSyntax", "ForceJSON", "LocalOrgFuzzDriver"],
            path: "Fuzz/ConditionFuzz",
            swiftSettings: fuzzing + [.unsafeFlags(["-parse-as-library"])],
            linkerSettings: [.unsafeFlags(["-sanitize=fuzzer,address"])]))
}

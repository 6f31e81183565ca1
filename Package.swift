// swift-tools-version:6.1
import PackageDescription

// Layers, bottom-up (see shared docs/design.md): ForceJSON (JSON values) -> SmartStore (soups on
// SQLite) -> ForceAPI -> MobileSync -> ContactsApp -> TerminalUI -> the forceterm executable.
// localorg sits beside them and shares only ForceJSON.
let strictConcurrency: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "forceterm",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "forceterm", targets: ["forceterm"]),
        .executable(name: "smartstore-tool", targets: ["smartstore-tool"]),
        .library(name: "SmartStore", targets: ["SmartStore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        .target(
            name: "ForceJSON",
            dependencies: [.product(name: "OrderedCollections", package: "swift-collections")],
            swiftSettings: strictConcurrency),
        .target(
            name: "SmartStore",
            dependencies: [
                "ForceJSON",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: strictConcurrency),
        .target(
            name: "TerminalUI",
            swiftSettings: strictConcurrency),
        .executableTarget(
            name: "forceterm",
            dependencies: [
                "SmartStore", "TerminalUI", "ForceJSON",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictConcurrency),
        .executableTarget(
            name: "smartstore-tool",
            dependencies: [
                "SmartStore", "ForceJSON",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictConcurrency),
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
            name: "TerminalUITests",
            dependencies: ["TerminalUI"]),
        .testTarget(
            name: "ForcetermCLITests",
            dependencies: ["SmartStore", "ForceJSON"]),
    ]
)

// swift-tools-version:6.0
import PackageDescription

// One target per layer; dependencies point one way:
//   tree-server -> TreeService -> TreeFormats (JSON in and out) -> TreeEngine
//               |             |-> TreeEngine  (pure data structure, no I/O)
//               |             |-> TreeStorage (the data directory: snapshots, journals) -> TreeEngine
//               |             \-> HTTP1       (sockets + Dispatch, knows no trees) -> CTreeSystem
//               \-> TreeProcess (process setup: malloc tunables, huge pages, open files) -> CTreeSystem
//   tree-bench  -> TreeFormats, TreeEngine, TreeStorage, TreeProcess (memory as tree-server has it)
//   CTreeSystem:   C; what Swift's Glibc module lacks (epoll, eventfd, malloc tunables, AT_SECURE)
//   TreeSessionsClient: the Swift client (Foundation only; none of the server's modules)
/// The TypeScript client's compiled modules (clients/typescript/dist/), served at /client/{file}.
let clientModules = ["adapters.js", "api.js", "index.js", "problem.js", "row-store.js", "splices.js", "sse.js", "transport.js", "tree-rows.js"]

let package = Package(
    name: "TreeSessions",
    products: [
        .library(name: "TreeEngine", targets: ["TreeEngine"]),
        .library(name: "TreeFormats", targets: ["TreeFormats"]),
        .library(name: "TreeStorage", targets: ["TreeStorage"]),
        .library(name: "HTTP1", targets: ["HTTP1"]),
        .library(name: "TreeProcess", targets: ["TreeProcess"]),
        .library(name: "TreeService", targets: ["TreeService"]),
        .library(name: "TreeSessionsClient", targets: ["TreeSessionsClient"]),
        .executable(name: "tree-server", targets: ["tree-server"]),
        .executable(name: "tree-bench", targets: ["tree-bench"]),
    ],
    targets: [
        .target(name: "TreeEngine"),
        .target(name: "TreeFormats", dependencies: ["TreeEngine"]),
        .target(name: "TreeStorage", dependencies: ["TreeEngine"]),
        .target(name: "CTreeSystem"),
        .target(name: "HTTP1", dependencies: ["CTreeSystem"]),
        .target(name: "TreeProcess", dependencies: ["CTreeSystem"]),
        // The demo page's files, the TypeScript client's modules and the API description, compiled
        // into the binary (no files beside it at run time). Sources/TreeService/openapi.yaml links
        // to the one at the root, Demo/client/*.js to clients/typescript/dist/.
        .target(name: "TreeService", dependencies: ["TreeEngine", "TreeFormats", "TreeStorage", "HTTP1"],
                resources: (["Demo/index.html", "Demo/demo.js", "Demo/demo.css", "Demo/outline-small.json", "openapi.yaml"]
                    + clientModules.map { "Demo/client/" + $0 })
                    .map { Resource.embedInCode($0) }),
        // The naive reference model, random trees and the test data (Resources/, compiled in;
        // the outline sample links to the demo's) that the engine and service tests share.
        .target(name: "TreeReference", dependencies: ["TreeEngine"], path: "Tests/Support/TreeReference",
                resources: [.embedInCode("Resources/outline-small.json")]),
        // A faulty disk (StorageFaults) for the storage and service tests.
        .target(name: "StorageTestSupport", dependencies: ["TreeStorage"], path: "Tests/Support/StorageTestSupport"),
        // The HTTP clients, server fixture and tool lookup that the HTTP and service tests share.
        .target(name: "HTTPTestSupport", dependencies: ["HTTP1"], path: "Tests/Support/HTTPTestSupport"),
        // The Swift client of the HTTP API: models, calls, events and RemoteListTreeDataSource.
        .target(name: "TreeSessionsClient"),
        .executableTarget(name: "tree-server", dependencies: ["TreeService", "TreeStorage", "HTTP1", "TreeProcess"]),
        .executableTarget(name: "tree-bench", dependencies: ["TreeEngine", "TreeFormats", "TreeStorage", "TreeProcess"]),
        // A minimal server of fixed bytes, for scripts/bench-http.sh (HTTP1 against nginx).
        .executableTarget(name: "http-bench-server", dependencies: ["HTTP1"]),
        .testTarget(name: "TreeEngineTests", dependencies: ["TreeEngine", "TreeFormats", "TreeStorage", "TreeReference"]),
        .testTarget(name: "TreeStorageTests", dependencies: ["TreeStorage", "TreeEngine", "TreeFormats", "TreeReference", "StorageTestSupport"]),
        .testTarget(name: "TreeFormatsTests", dependencies: ["TreeFormats", "TreeEngine", "TreeReference"]),
        .testTarget(name: "HTTP1Tests", dependencies: ["HTTP1", "HTTPTestSupport"]),
        .testTarget(name: "TreeSessionsClientTests", dependencies: ["TreeSessionsClient", "HTTPTestSupport", "HTTP1"]),
        .testTarget(name: "TreeServiceTests", dependencies: ["TreeService", "TreeEngine", "TreeFormats", "TreeStorage", "HTTP1", "TreeProcess", "TreeReference", "HTTPTestSupport", "StorageTestSupport"]),
    ]
)

// The same strict settings for every target: Swift 6 language mode, and the
// engine's invariant checks compiled into debug builds only.
for target in package.targets {
    var settings = target.swiftSettings ?? []
    settings.append(.define("TREE_INVARIANTS", .when(configuration: .debug)))
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    target.swiftSettings = settings
}

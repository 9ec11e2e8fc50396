// swift-tools-version: 6.2
// Benchmarks live in their own package so the main build stays light. Run them with `scripts/bench/run`
// (or `swift package benchmark` in this folder).
import PackageDescription

// SwiftPM names a path dependency after its folder, and a clone's folder can have any name.
let root = String(#filePath.split(separator: "/").dropLast(2).last ?? "timesync").lowercased()

let package = Package(
    name: "TimeSyncBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        // The CLI trait: the servers, the timesync command and the test tools.
        .package(path: "..", traits: ["CLI"]),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.0", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.10.0"),
    ],
    targets: [
        // The SNTP load generator: the same settings against our server and chronyd.
        // With --nts-ke, NTS requests after one key exchange.
        .executableTarget(
            name: "ntp-load",
            dependencies: ["CBatchSocket", "LoadSupport", .product(name: "TimeSyncNTS", package: root), .product(name: "TimeSync", package: root)],
            path: "Tools/ntp-load"),
        // The Roughtime load generator: requests at rising rates, a sample of replies verified.
        .executableTarget(
            name: "roughtime-load",
            // TimeSyncRoughtime brings the wire module (in no product) that the load generator imports.
            dependencies: ["CBatchSocket", "LoadSupport", .product(name: "TimeSyncRoughtime", package: root), .product(name: "TimeSync", package: root)],
            path: "Tools/roughtime-load"),
        // What the load generators share: usage errors, CPU time of a process, clocks, UDP sockets.
        .target(name: "LoadSupport", path: "Tools/LoadSupport"),
        // sendmmsg/recvmmsg, which Glibc's Swift module leaves out.
        .target(name: "CBatchSocket", path: "Tools/CBatchSocket"),
        // The HTTP middleware benchmark's server: one JSON route, with or without TimestampMiddleware.
        .executableTarget(
            name: "http-bench-server",
            dependencies: [
                .product(name: "TimeSyncHummingbird", package: root),
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            path: "Tools/http-bench-server"
        ),
        .executableTarget(
            name: "ClockRead",
            dependencies: [
                .product(name: "TimeSync", package: root),
                .product(name: "TimeSyncTesting", package: root),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/ClockRead",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // The NTS server's cryptography: a cookie sealed and opened, a request checked and answered.
        .executableTarget(
            name: "NTSCipher",
            dependencies: [
                .product(name: "TimeSync", package: root),
                .product(name: "TimeSyncNTS", package: root),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/NTSCipher",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)

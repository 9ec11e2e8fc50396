// swift-tools-version: 6.1
// Benchmarks live in their own package so the main build stays light. Run them with `scripts/bench`
// (or `swift package benchmark` in this folder).
import PackageDescription

let package = Package(
    name: "TimeSyncBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.0", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.10.0"),
    ],
    targets: [
        // The SNTP load generator: the same settings against our server and chronyd.
        .executableTarget(name: "ntp-load", path: "Tools/ntp-load"),
        // A seeded user-space UDP relay (delay, jitter, spikes, loss per direction): the kernel has no netem.
        .executableTarget(
            name: "udp-relay",
            dependencies: [.product(name: "TimeSyncNTP", package: "main")],
            path: "Tools/udp-relay"
        ),
        // The HTTP middleware benchmark's server: one JSON route, with or without TimeStampMiddleware.
        .executableTarget(
            name: "http-bench-server",
            dependencies: [
                .product(name: "TimeSyncHummingbird", package: "main"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            path: "Tools/http-bench-server"
        ),
        .executableTarget(
            name: "ClockRead",
            dependencies: [
                .product(name: "TimeSync", package: "main"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/ClockRead",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)

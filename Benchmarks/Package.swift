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
    ],
    targets: [
        // The SNTP load generator: the same settings against our server and chronyd.
        .executableTarget(name: "ntp-load", path: "Tools/ntp-load"),
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

// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "TimeSync",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "TimeSync", targets: ["TimeSync"]),
        .library(name: "TimeSyncObservation", targets: ["TimeSyncObservation"]),
        .library(name: "TimeSyncNTP", targets: ["TimeSyncNTP"]),
        .library(name: "TimeSyncRoughtime", targets: ["TimeSyncRoughtime"]),
        .library(name: "TimeSyncNTPServer", targets: ["TimeSyncNTPServer"]),
        .library(name: "TimeSyncNTS", targets: ["TimeSyncNTS"]),
        .library(name: "TimeSyncRoughtimeServer", targets: ["TimeSyncRoughtimeServer"]),
        .library(name: "TimeSyncHTTP", targets: ["TimeSyncHTTP"]),
        .library(name: "TimeSyncAsyncHTTPClient", targets: ["TimeSyncAsyncHTTPClient"]),
        .library(name: "TimeSyncHummingbird", targets: ["TimeSyncHummingbird"]),
        .library(name: "TimeSyncTesting", targets: ["TimeSyncTesting"]),
        .executable(name: "timesync", targets: ["timesync"]),
    ],
    // What an app needs works with no trait: the core, HTTP over URLSession, the NTP client on the
    // system's sockets. Servers and the CLI enable the traits that bring SwiftNIO and the rest, in
    // their dependency line: `.package(url: …, from: …, traits: ["NTPServer"])`.
    traits: [
        .trait(name: "NTPServer", description: "TimeSyncNTPServer: the SNTP server, on SwiftNIO.", enabledTraits: ["ServiceLifecycle"]),
        .trait(
            name: "NTS",
            description: "TimeSyncNTS: authenticated NTP (RFC 8915), client and server, on SwiftNIO and swift-nio-ssl.",
            enabledTraits: ["ServiceLifecycle"]),
        .trait(
            name: "RoughtimeServer", description: "TimeSyncRoughtimeServer: the Roughtime server (batch-signed replies), on SwiftNIO.",
            enabledTraits: ["ServiceLifecycle"]),
        .trait(name: "AsyncHTTPClient", description: "TimeSyncAsyncHTTPClient: HTTP measurement on AsyncHTTPClient."),
        .trait(name: "Hummingbird", description: "TimeSyncHummingbird: time stamps on Hummingbird responses.", enabledTraits: ["ServiceLifecycle"]),
        .trait(name: "ServiceLifecycle", description: "TimeSynchronizer and NTPPoolSource as swift-service-lifecycle Services."),
        .trait(
            name: "CLI", description: "The timesync command (and the test tools): every other trait and swift-argument-parser.",
            enabledTraits: ["NTPServer", "NTS", "RoughtimeServer", "AsyncHTTPClient", "Hummingbird", "ServiceLifecycle"]),
        .default(enabledTraits: []),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        // Already SwiftNIO's: the NTS server's master keys, swapped atomically on rotation.
        .package(url: "https://github.com/apple/swift-atomics", from: "1.2.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.25.0"),
        // Already AsyncHTTPClient's: named to tell a failed TLS handshake from other transport errors.
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.30.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.10.0"),
        .package(url: "https://github.com/apple/swift-http-structured-headers", from: "1.2.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.3.0"),
        // HMAC-SHA256 over stored calibrations (CryptoKit on Apple platforms).
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        // `swift package --disable-sandbox generate-documentation --target TimeSync`
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    ],
    targets: [
        // The core: no network I/O; its one dependency authenticates stored calibrations (on Apple
        // platforms swift-crypto is CryptoKit).
        // Its privacy manifest declares the required-reason APIs it uses on Apple platforms
        // (UserDefaults for `UserDefaultsCalibrationStore`, the boot-time clock it measures with, the
        // file metadata its file store and key files are checked by).
        .target(
            name: "TimeSync", dependencies: [.product(name: "Crypto", package: "swift-crypto")],
            resources: [.copy("PrivacyInfo.xcprivacy")]),
        // The clock's state for SwiftUI through Observation (macOS 14, iOS 17): a module of its own, so
        // that an app on older systems links no `@Observable` class with the core.
        .target(name: "TimeSyncObservation", dependencies: ["TimeSync"]),
        // The wire formats and the sans-IO exchanges (in no product): NTP, NTS, Roughtime and the HTTP
        // header codecs, addresses and the order to try them in. The client and server modules build on
        // it and re-export, type by type, what their public signatures mention.
        .target(name: "TimeSyncWire", dependencies: ["TimeSync", .product(name: "Crypto", package: "swift-crypto")]),
        // Transports: thin adapters over the core.
        // The system's UDP sockets (POSIX) and name resolution, and the one driver that runs the core's
        // NTP, NTS and Roughtime exchanges on them (package-internal: the client modules export it).
        .target(name: "TimeSyncSockets", dependencies: ["TimeSync", "TimeSyncWire"]),
        // The NTP client on the system's UDP sockets, with the HTTPS `Date` fallback: what an app links.
        .target(
            name: "TimeSyncNTP",
            dependencies: [
                "TimeSync", "TimeSyncWire",
                "TimeSyncHTTP",
                "TimeSyncSockets",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["ServiceLifecycle"])),
            ]
        ),
        // The Roughtime client on the system's UDP sockets: signed time, no trait (swift-crypto reads
        // long-term key files).
        .target(
            name: "TimeSyncRoughtime", dependencies: ["TimeSync", "TimeSyncWire", "TimeSyncSockets", .product(name: "Crypto", package: "swift-crypto")]),
        // What the servers share (in no product): the sans-IO server policies (the NTP responder and
        // its rate limiter, the Roughtime responder, NTS requests, the connection table, client
        // prefixes) and, under the traits `NTPServer`, `NTS`, `RoughtimeServer`, waiting for the bound
        // address, endpoints in logs, the per-address rate limiter.
        .target(
            name: "TimeSyncServerSupport",
            dependencies: [
                "TimeSync", "TimeSyncWire",
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["NTPServer", "NTS", "RoughtimeServer"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["NTPServer", "NTS", "RoughtimeServer"])),
            ]
        ),
        // The SNTP server, on SwiftNIO (trait `NTPServer`); on Linux its batched path reads and writes
        // through recvmmsg/sendmmsg (CTimeSyncBatchIO).
        .target(
            name: "TimeSyncNTPServer",
            dependencies: [
                "TimeSync", "TimeSyncWire",
                "TimeSyncNTP",
                "TimeSyncServerSupport",
                .target(name: "CTimeSyncBatchIO", condition: .when(platforms: [.linux])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["NTPServer"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["NTPServer"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["NTPServer"])),
                .product(name: "Metrics", package: "swift-metrics", condition: .when(traits: ["NTPServer"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["NTPServer"])),
            ]
        ),
        // recvmmsg/sendmmsg and kernel receive timestamps, which Glibc's Swift module leaves out
        // (GNU extensions); empty on other platforms.
        .target(name: "CTimeSyncBatchIO"),
        // Network Time Security (trait `NTS`): the key exchange over TLS 1.3 (SwiftNIO, swift-nio-ssl),
        // AES-SIV-CMAC-256 (swift-crypto), the authenticated client, the key-exchange server and the
        // master keys an NTP server checks NTS requests with.
        .target(
            name: "TimeSyncNTS",
            dependencies: [
                "TimeSync", "TimeSyncWire",
                "TimeSyncNTP",
                "TimeSyncSockets",
                "TimeSyncServerSupport",
                .product(name: "Crypto", package: "swift-crypto", condition: .when(traits: ["NTS"])),
                .product(name: "CryptoExtras", package: "swift-crypto", condition: .when(traits: ["NTS"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["NTS"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["NTS"])),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio", condition: .when(traits: ["NTS"])),
                .product(name: "Atomics", package: "swift-atomics", condition: .when(traits: ["NTS"])),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["NTS"])),
                .product(name: "NIOTLS", package: "swift-nio", condition: .when(traits: ["NTS"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["NTS"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["NTS"])),
            ]
        ),
        // The Roughtime server (trait `RoughtimeServer`): `TimeSyncServerSupport`'s responder on a SwiftNIO socket,
        // requests read together signed together.
        .target(
            name: "TimeSyncRoughtimeServer",
            dependencies: [
                "TimeSync", "TimeSyncWire",
                "TimeSyncServerSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["RoughtimeServer"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["RoughtimeServer"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["RoughtimeServer"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["RoughtimeServer"])),
            ]
        ),
        // HTTP without SwiftNIO: the observer, the header, the URLSession adapter (what an app needs).
        .target(
            name: "TimeSyncHTTP",
            dependencies: [
                "TimeSync", "TimeSyncWire",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "RawStructuredFieldValues", package: "swift-http-structured-headers"),
            ]
        ),
        // Active HTTP measurement on AsyncHTTPClient (trait `AsyncHTTPClient`: servers, the CLI).
        .target(
            name: "TimeSyncAsyncHTTPClient",
            dependencies: [
                "TimeSync", "TimeSyncWire",
                "TimeSyncHTTP",
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["AsyncHTTPClient"])),
            ]
        ),
        // Stamping Hummingbird responses (trait `Hummingbird`).
        .target(
            name: "TimeSyncHummingbird",
            dependencies: [
                "TimeSync", "TimeSyncWire", "TimeSyncServerSupport",
                "TimeSyncHTTP",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Hummingbird"])),
                .product(name: "HummingbirdCore", package: "hummingbird", condition: .when(traits: ["Hummingbird"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Hummingbird"])),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: ["Hummingbird"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["Hummingbird"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Hummingbird"])),
            ]
        ),
        // A deterministic network and the strategies other libraries use, judged against ground truth
        // (`timesync simulate`, the benchmarks).
        .target(name: "TimeSyncSimulation", dependencies: ["TimeSync", "TimeSyncWire", "TimeSyncTesting"]),
        // For tests of code that uses TimeSync: a time base moved by hand, a seeded generator.
        .target(name: "TimeSyncTesting", dependencies: ["TimeSync"]),
        // The command: with no trait `demo`, `simulate`, and `query` and `watch` on NTP and HTTP over
        // URLSession (`swift run timesync demo`); the trait `CLI` adds NTS and Roughtime, HTTP on
        // AsyncHTTPClient, `serve` and `roughtime` (`swift run --traits CLI timesync serve …`).
        .executableTarget(
            name: "timesync",
            dependencies: [
                "TimeSync", "TimeSyncWire",
                "TimeSyncNTP",
                "TimeSyncRoughtime",
                "TimeSyncNTPServer",
                "TimeSyncNTS",
                "TimeSyncRoughtimeServer",
                "TimeSyncHTTP",
                "TimeSyncAsyncHTTPClient",
                "TimeSyncHummingbird",
                "TimeSyncSimulation",
                "TimeSyncTesting",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["CLI"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["CLI"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["CLI"])),
                .product(name: "Crypto", package: "swift-crypto", condition: .when(traits: ["CLI"])),
            ],
            // `serve --http` serves the JavaScript client and its demo page: `Web` links to web/.
            exclude: ["Web/package.json", "Web/README.md", "Web/timesync.d.ts", "Web/test", "Web/tools"],
            resources: [.copy("Web/timesync.js"), .copy("Web/demo/index.html")]
        ),
        // Test and benchmark support, in no product (trait `CLI`): a seeded user-space UDP relay (delay,
        // jitter, spikes, loss per direction: the kernel has no netem) and its command-line front end.
        .target(
            name: "UDPRelay",
            dependencies: [
                "TimeSync", "TimeSyncWire", "TimeSyncTesting",
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["CLI"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["CLI"])),
            ],
            path: "Tests/Support/UDPRelay"
        ),
        .executableTarget(
            name: "udp-relay",
            dependencies: ["UDPRelay", .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["CLI"]))],
            path: "Tests/Support/udp-relay"
        ),
        // A child process for the UserDefaults durability test: saves a calibration and waits to be
        // killed, or restores one.
        .executableTarget(name: "store-writer", dependencies: ["TimeSync"], path: "Tests/Support/store-writer"),
        // What the tests share (trait `CLI`): real peers (chronyd, libfaketime, child processes),
        // loopback servers.
        .target(
            name: "TimeSyncTestSupport",
            dependencies: [
                "TimeSync", "TimeSyncWire", "TimeSyncNTP", "TimeSyncNTPServer", "TimeSyncServerSupport",
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["CLI"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["CLI"])),
            ],
            path: "Tests/Support/TestSupport"
        ),
        // Sample builders and in-memory stores for the core's tests.
        .target(
            name: "TimeSyncFixtures", dependencies: ["TimeSync", "TimeSyncWire", "TimeSyncServerSupport", "TimeSyncTesting"],
            path: "Tests/Support/Fixtures"),
        // Unit tests, one target per module; deterministic, no real sleeps, run in parallel. A module's
        // tests need its trait (its files are compiled out without it): with no trait,
        // `swift build --build-tests` builds the core's tests and nothing of SwiftNIO.
        .testTarget(
            name: "TimeSyncTests",
            dependencies: [
                "TimeSync", "TimeSyncWire", "TimeSyncServerSupport", "TimeSyncTesting", "TimeSyncFixtures",
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        .testTarget(name: "TimeSyncObservationTests", dependencies: ["TimeSync", "TimeSyncObservation", "TimeSyncTesting", "TimeSyncFixtures"]),
        .testTarget(
            name: "TimeSyncSimulationTests", dependencies: ["TimeSync", "TimeSyncWire", "TimeSyncTesting", "TimeSyncSimulation", "TimeSyncFixtures"]),
        .testTarget(
            name: "TimeSyncNTPTests",
            dependencies: [
                "TimeSync", "TimeSyncWire", "TimeSyncNTP", "TimeSyncSockets", "TimeSyncNTPServer", "TimeSyncServerSupport", "TimeSyncTesting",
                "TimeSyncTestSupport", "TimeSyncFixtures",
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["NTPServer"])),
                .product(name: "Metrics", package: "swift-metrics", condition: .when(traits: ["NTPServer"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["NTPServer"])),
                .product(name: "NIOEmbedded", package: "swift-nio", condition: .when(traits: ["NTPServer"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["NTPServer"])),
            ]
        ),
        .testTarget(
            name: "TimeSyncRoughtimeTests",
            dependencies: [
                "TimeSync", "TimeSyncWire", "TimeSyncRoughtime", "TimeSyncServerSupport", "TimeSyncTesting", "TimeSyncFixtures", .product(name: "Crypto", package: "swift-crypto"),
            ]),
        .testTarget(
            name: "TimeSyncRoughtimeServerTests",
            dependencies: [
                "TimeSync", "TimeSyncWire", "TimeSyncRoughtimeServer", "TimeSyncServerSupport", "TimeSyncTesting",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["RoughtimeServer"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["RoughtimeServer"])),
                .product(name: "NIOEmbedded", package: "swift-nio", condition: .when(traits: ["RoughtimeServer"])),
            ]
        ),
        .testTarget(
            name: "TimeSyncNTSTests",
            dependencies: [
                "TimeSync", "TimeSyncWire", "TimeSyncNTS", "TimeSyncNTPServer", "TimeSyncServerSupport", "TimeSyncTesting", "TimeSyncFixtures",
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["NTS"])),
                .product(name: "NIOEmbedded", package: "swift-nio", condition: .when(traits: ["NTS"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["NTS"])),
            ],
            exclude: ["exporter-vectors.json"]
        ),
        .testTarget(
            name: "TimeSyncHTTPTests",
            dependencies: [
                "TimeSync", "TimeSyncWire", "TimeSyncHTTP", "TimeSyncAsyncHTTPClient", "TimeSyncTesting", "TimeSyncSimulation", "TimeSyncFixtures",
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["AsyncHTTPClient"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["AsyncHTTPClient"])),
            ]
        ),
        .testTarget(
            name: "TimeSyncHummingbirdTests",
            dependencies: [
                "TimeSync", "TimeSyncWire", "TimeSyncHTTP", "TimeSyncHummingbird", "TimeSyncTesting",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Hummingbird"])),
                .product(name: "HummingbirdTesting", package: "hummingbird", condition: .when(traits: ["Hummingbird"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Hummingbird"])),
            ]
        ),
        // Real peers and real time: chronyd, libfaketime, the CLI, loopback servers under load,
        // exchanges that wait for deadlines. `scripts/test` runs them serially, after the unit tests.
        .testTarget(
            name: "TimeSyncInteropTests",
            dependencies: [
                "TimeSync", "TimeSyncWire", "TimeSyncNTP", "TimeSyncSockets", "TimeSyncRoughtime", "TimeSyncNTPServer", "TimeSyncServerSupport",
                "TimeSyncNTS", "TimeSyncRoughtimeServer", "TimeSyncHTTP",
                "TimeSyncAsyncHTTPClient", "TimeSyncHummingbird", "TimeSyncTesting", "TimeSyncTestSupport", "TimeSyncFixtures", "UDPRelay",
                "TimeSyncObservation",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["CLI"])),
                .product(name: "Metrics", package: "swift-metrics", condition: .when(traits: ["CLI"])),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio", condition: .when(traits: ["CLI"])),
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["CLI"])),
                .product(name: "HummingbirdTesting", package: "hummingbird", condition: .when(traits: ["CLI"])),
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(traits: ["CLI"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["CLI"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["CLI"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["CLI"])),
            ]
        ),
        // The documentation's Swift blocks, compiled as an app compiles them: with no package access,
        // so they see only the public API (`DocumentationSnippetTests` checks the text).
        .testTarget(
            name: "TimeSyncSnippets",
            dependencies: [
                "TimeSync", "TimeSyncNTP", "TimeSyncHTTP", "TimeSyncObservation", "TimeSyncTesting", "TimeSyncRoughtime",
                "TimeSyncNTS", "TimeSyncNTPServer", "TimeSyncRoughtimeServer", "TimeSyncAsyncHTTPClient", "TimeSyncHummingbird",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["CLI"])),
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(traits: ["CLI"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["CLI"])),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: ["CLI"])),
            ],
            packageAccess: false
        ),
    ],
    swiftLanguageModes: [.v6]
)

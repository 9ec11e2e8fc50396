#if CLI
import Crypto
import Hummingbird
import Logging
import ServiceLifecycle
import TimeSync
import TimeSyncHTTP
import TimeSyncHummingbird
import TimeSyncNTPServer
import TimeSyncRoughtimeServer

// The Swift blocks about serving time (Hummingbird, the NTP and Roughtime servers), compiled as
// written with the imports this file has. Never called: they would bind ports. The names they use and
// do not define are the parameters of the function around them. `DocumentationSnippetTests` checks the
// documentation still says exactly this.

private func httpHeaderHummingbird() {
    // snippet: http-header-hummingbird
    let router = Router()
    router.addTimeRoute()                                  // GET /time, Cache-Control: no-store
    let app = Application(router: router.timeStamped())   // every response stamped, from outside the router
    // end snippet
    _ = app
}

private func servingHummingbirdApp() async throws {
    // snippet: serving-hummingbird-app
    let router = Router()
    router.addTimeRoute()                                  // GET /time
    router.get("/api/sale") { _, _ in "ok" }

    let app = TimeSyncApplication(
        router: router.timeStamped(uncertainty: .milliseconds(2)),
        configuration: .init(address: .hostname("0.0.0.0", port: 8080)))
    try await app.runService()
    // end snippet
}

private func servingMiddleware() {
    // snippet: serving-middleware
    let router = Router()
    router.add(middleware: TimestampMiddleware())
    router.addTimeRoute()
    // end snippet
}

private func servingNTP() async throws {
    // snippet: serving-ntp
    let logger = Logger(label: "ntp")
    let server = NTPServer(
        configuration: NTPServerConfiguration(
            host: "0.0.0.0", port: 123, rateLimit: 2, threads: NTPServerConfiguration.availableCores),
        logger: logger)
    let group = ServiceGroup(services: [server], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
    try await group.run()
    // end snippet
}

private func hummingbirdOverview() async throws {
    // snippet: hummingbird-overview
    let router = Router()
    router.addTimeRoute()                                   // GET /time
    router.get("/api") { _, _ in "ok" }

    let app = TimeSyncApplication(
        router: router.timeStamped(),
        configuration: .init(address: .hostname("0.0.0.0", port: 8080)))
    try await app.runService()
    // end snippet
}

private func ntpServer() async throws {
    // snippet: ntp-server
    let server = NTPServer(configuration: NTPServerConfiguration(host: "0.0.0.0", port: 123, rateLimit: 2))
    try await server.run()                     // until cancelled, or in a ServiceGroup
    // end snippet
}

private func roughtimeServer(seed: [UInt8]) async throws {
    // snippet: roughtime-server
    let key = try Curve25519.Signing.PrivateKey(rawRepresentation: seed)   // 32 bytes, kept secret
    let server = try RoughtimeServer(configuration: .init(host: "0.0.0.0", port: 2002), longTermKey: key)
    print(server.publicKeyBase64)              // what clients pin: roughtime://host:2002?key=…
    try await server.run()                     // until cancelled, or in a ServiceGroup
    // end snippet
}
#endif

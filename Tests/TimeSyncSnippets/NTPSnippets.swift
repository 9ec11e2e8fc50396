#if CLI
import TimeSync
import TimeSyncNTP
import TimeSyncNTS
import TimeSyncRoughtime

// The Swift blocks about the clients of NTP, NTS and Roughtime, compiled as written with the imports
// this file has. Never called: they would reach the network. The names they use and do not define are
// the parameters of the function around them. `DocumentationSnippetTests` checks the documentation
// still says exactly this.

private func oneLiner() {
    // snippet: one-liner
    let now = TimeSynchronizer.shared.clock.now
    // end snippet
    _ = now
}

private func nts() throws {
    // snippet: nts
    // Authenticated NTP (RFC 8915): a key exchange over TLS, then replies signed with its keys. A
    // reply altered, replayed or forged on the path is dropped, never used.
    let servers = ["time.cloudflare.com", "nts.netnod.se", "ptbtime1.ptb.de"].map { NTSTimeSource(host: $0) }
    let secure = try TimeSynchronizer(sources: servers)
    secure.start()
    // end snippet
}

private func sharingWithExtensions() {
    // snippet: sharing-with-extensions
    let group = "group.com.example.app"
    let synchronizer = TimeSynchronizer.ntp(
        store: UserDefaultsCalibrationStore(suiteName: group),
        keyProvider: SystemCalibrationKeyProvider(accessGroup: group))
    // end snippet
    _ = synchronizer
}

private func sourceNTPPool() {
    // snippet: source-ntp-pool
    let clock = ServerClock()
    let pool = NTPPoolSource(clock: clock)          // 0–3.pool.ntp.org
    let polling = Task { try await pool.run() }     // or run it in a ServiceGroup
    // end snippet
    _ = polling
}

private func sourceNTPQuery(clock: ServerClock) async throws {
    // snippet: source-ntp-query
    let result = try await NTPClient(timeBase: clock.timeBase).query(host: "time.example.com", samples: 4)
    print(result.wallClockOffset, result.error)              // server − this device's wall clock
    for sample in result.samples { clock.calibrate(with: sample) }
    // end snippet
}

private func ntpPool() async throws {
    // snippet: ntp-pool
    let clock = ServerClock()
    let pool = NTPPoolSource(clock: clock, onEvent: { event in print(event) })
    try await pool.run()                       // until cancelled, or in a ServiceGroup
    // end snippet
}

private func ntpQuery() async throws {
    // snippet: ntp-query
    let result = try await NTPClient().query(host: "pool.ntp.org", samples: 4)
    print(result.wallClockOffset, result.error, result.stratum)
    // end snippet
}

private func ntsExchange() async throws {
    // snippet: nts-exchange
    let client = NTSClient(host: "time.cloudflare.com")
    let exchange = try await client.exchange(timeout: .seconds(5))
    let sample = try exchange.reply.sample(source: "nts://time.cloudflare.com")
    // end snippet
    _ = sample
}

private func ntsQuery() async throws {
    // snippet: nts-query
    let server = try NTSServerURL("nts://time.cloudflare.com")
    let result = try await NTSClient(host: server.host, port: server.port).query(samples: 4)
    print(result.measurement.wallClockOffset, "±", result.measurement.error)
    // end snippet
}

private func usingNTS() throws {
    // snippet: using-nts
    let servers = ["time.cloudflare.com", "nts.netnod.se", "ptbtime1.ptb.de"].map { NTSTimeSource(host: $0) }
    let secure = try TimeSynchronizer(sources: servers)
    secure.start()
    // end snippet
}

private func roughtimeQuery() async throws {
    // snippet: roughtime-query
    let server = try RoughtimeServerURL("roughtime://roughtime.example:2002?key=AW5uAoTSTDfG5NfY1bTh08GUnOqlRb+HVhbJ3ODJvsE=")
    let result = try await RoughtimeClient(server).query(samples: 4)
    print(result.wallClockOffset.estimate, "±", result.wallClockOffset.error)
    // end snippet
}
#endif

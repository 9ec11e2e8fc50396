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
    let secure = try TimeSynchronizer(sources: [.nts("time.cloudflare.com"), .nts("nts.netnod.se"), .nts("ptbtime1.ptb.de")])
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

private func sourceNTP() async throws {
    // snippet: source-ntp
    let sync = try TimeSynchronizer(sources: [.ntp("time1.example.com"), .ntp("time2.example.com"), .ntp("time3.example.com")])
    sync.start()
    if let reading = await sync.firstReading(timeout: .seconds(5)) {
        print(reading.serverTime, "±", reading.error)        // bounds: reading.earliest...reading.latest
    }
    // end snippet
}

private func ntpSources() async throws {
    // snippet: ntp-sources
    let sync = try TimeSynchronizer(sources: [.ntp("time1.example.com"), .ntp("time2.example.com"), .ntp("time3.example.com")])
    sync.start()
    if let reading = await sync.firstReading(timeout: .seconds(5)) {
        print(reading.serverTime, "±", reading.error, reading.status)
    }
    // end snippet
}

private func usingNTS() throws {
    // snippet: using-nts
    let secure = try TimeSynchronizer(sources: [.nts("time.cloudflare.com"), .nts("nts.netnod.se"), .nts("ptbtime1.ptb.de")])
    secure.start()
    // end snippet
}

private func roughtimeSource() throws {
    // snippet: roughtime-source
    // The key pins the server's long-term Ed25519 key: a reply it did not sign is refused.
    let server = try RoughtimeServerURL("roughtime://roughtime.example:2002?key=AW5uAoTSTDfG5NfY1bTh08GUnOqlRb+HVhbJ3ODJvsE=")
    let sync = try TimeSynchronizer(sources: [.roughtime(server), .ntp("time1.example.com"), .ntp("time2.example.com")])
    sync.start()
    // end snippet
}
#endif

#if CLI
import NIOCore
import Testing
import TimeSync
import TimeSyncWire
import TimeSyncFixtures
import TimeSyncTestSupport
import TimeSyncNTP
import TimeSyncNTPServer

@Suite struct NTPPoolSourceTests {
    /// Three servers, one of them 5 s off: the burst calibrates the clock from the two that agree and
    /// the falseticker is left out.
    @Test func burstCalibratesTheClockAndDropsAFalseticker() async throws {
        let honestA = try await FakeNTPServer.start { [goodReply(to: $0, shift: .milliseconds(200)).encoded()] }
        let honestB = try await FakeNTPServer.start { [goodReply(to: $0, shift: .milliseconds(200)).encoded()] }
        let falseticker = try await FakeNTPServer.start { [goodReply(to: $0, shift: .seconds(5)).encoded()] }
        let ports = [honestA, honestB, falseticker].map { $0.address.port! }
        let servers = ports.map { NTPServerAddress(host: "127.0.0.1", port: $0) }
        let clock = ServerClock()
        let events = EventLog()
        let source = loopbackPoolSource(
            ports: ports, clock: clock, events: events, burst: 4, interval: .milliseconds(20), timeout: .seconds(1))
        let task = Task { try await source.run() }
        try await events.wait { $0.filter(\.isSample).count >= 12 }
        task.cancel()
        try await task.value
        for server in [honestA, honestB, falseticker] { await server.close() }

        let calibration = try #require(clock.calibration)
        let falsetickerName = "127.0.0.1:\(servers[2].port)"
        #expect(Set(calibration.sources) == Set(servers.prefix(2).map(\.description)))
        #expect(!calibration.sources.contains(falsetickerName))
        let reading = clock.reading()
        #expect(reading.isSynchronized)
        // server time − device wall time ≈ +200 ms.
        let offset = reading.serverTime.nanoseconds - SystemTimeBase().wallNow().nanoseconds
        #expect(abs(offset - 200_000_000) < 20_000_000)
        let resolved = events.all.contains { event in
            if case .resolved = event { true } else { false }
        }
        #expect(resolved)
    }

    @Test func unreachableServerBecomesErrorEventsAndTheClockKeepsItsCalibration() async throws {
        let good = try await FakeNTPServer.start { [goodReply(to: $0).encoded()] }
        let silentPort = try await freeUDPPort()  // nothing listens there
        let clock = ServerClock()
        let events = EventLog()
        let source = loopbackPoolSource(
            ports: [good.address.port!, silentPort], clock: clock, events: events, burst: 2, timeout: .milliseconds(150))
        let task = Task { try await source.run() }
        try await events.wait { log in
            log.filter(\.isSample).count >= 2 && log.filter { if case .failed = $0 { true } else { false } }.count >= 2
        }
        task.cancel()
        try await task.value
        await good.close()
        // One good source of two: no majority of all sources, but the good one calibrated. Whatever the
        // estimator concluded, the failures themselves never reached it as samples.
        let goodName = "127.0.0.1:\(good.address.port!)"
        let samplesFromGoodOnly = events.all.allSatisfy { event in
            if case .sample(let sample) = event { sample.source == goodName } else { true }
        }
        #expect(samplesFromGoodOnly)
        let failures = events.all.compactMap { if case .failed(_, _, let retry) = $0 { retry } else { nil } }
        #expect(failures.first == .milliseconds(10))  // still in the burst
        let steady = failures.dropFirst().allSatisfy { $0 >= .seconds(16) }
        #expect(steady)
    }

    /// A server that answers twice, then turns unsynchronized, then goes silent: the clock keeps the
    /// calibration the good replies gave it.
    @Test func clockKeepsItsLastGoodCalibrationThroughFailures() async throws {
        let requests = LockedArray<Int>()
        let fake = try await FakeNTPServer.start { request in
            requests.append(1)
            switch requests.snapshot.count {
            case 1, 2: return [goodReply(to: request, shift: .milliseconds(40)).encoded()]
            case 3:
                var reply = goodReply(to: request)
                reply.leap = .unsynchronized
                return [reply.encoded()]
            default: return []
            }
        }
        let clock = ServerClock()
        let events = EventLog()
        let source = loopbackPoolSource(
            ports: [fake.address.port!], clock: clock, events: events, burst: 4, timeout: .milliseconds(150))
        let task = Task { try await source.run() }
        try await events.wait { $0.filter(\.isSample).count >= 2 }
        let calibrated = try #require(clock.calibration)
        try await events.wait { log in
            log.filter { if case .failed = $0 { true } else { false } }.count >= 2
        }
        task.cancel()
        try await task.value
        await fake.close()
        let failures = events.all.compactMap { if case .failed(_, let error, _) = $0 { error } else { nil } }
        #expect(failures.first?.contains("not synchronized") == true)
        #expect(failures.dropFirst().first?.contains("no NTP reply") == true)
        #expect(clock.calibration == calibrated)
        let offset = clock.reading().serverTime.nanoseconds - SystemTimeBase().wallNow().nanoseconds
        #expect(abs(offset - 40_000_000) < 20_000_000)
    }

    @Test func dnsFailureIsAnEventWithBackoff() async throws {
        let clock = ServerClock()
        let events = EventLog()
        let source = NTPPoolSource(
            clock: clock, configuration: NTPPoolConfiguration(servers: [NTPServerAddress(host: "no-such-host.invalid")]),
            onEvent: { events.append($0) })
        let task = Task { try await source.run() }
        try await events.wait { !$0.isEmpty }
        task.cancel()
        try await task.value
        guard case .resolutionFailed(_, _, let retry) = events.all.first else {
            Issue.record("expected a resolution failure, got \(events.all)")
            return
        }
        #expect(retry == .seconds(16))
        #expect(clock.calibration == nil)
    }

    @Test func sourceNames() throws {
        let v4 = try #require(IPEndpoint(host: "192.0.2.7", port: 123))
        let v6 = try #require(IPEndpoint(host: "2001:db8::7", port: 123))
        #expect(NTPPoolSource.sourceName(server: NTPServerAddress(host: "pool.example"), address: v4) == "pool.example/192.0.2.7:123")
        #expect(NTPPoolSource.sourceName(server: NTPServerAddress(host: "pool.example"), address: v6) == "pool.example/[2001:db8::7]:123")
        #expect(NTPPoolSource.sourceName(server: NTPServerAddress(host: "192.0.2.7"), address: v4) == "192.0.2.7:123")
    }
}

@Suite struct NTPServerAddressTests {
    @Test(arguments: [
        ("time.example", "time.example", 123),
        ("time.example:1123", "time.example", 1123),
        ("ntp://time.example:4123/", "time.example", 4123),
        ("NTP://192.0.2.1", "192.0.2.1", 123),
        ("[2001:db8::1]:999", "2001:db8::1", 999),
        ("[2001:db8::1]", "2001:db8::1", 123),
        ("2001:db8::1", "2001:db8::1", 123),
        ("  pool.ntp.org  ", "pool.ntp.org", 123),
    ])
    func parses(_ text: String, _ host: String, _ port: Int) {
        #expect(NTPServerAddress(parsing: text) == NTPServerAddress(host: host, port: port))
    }

    @Test(arguments: ["", "host:0", "host:70000", "host:abc", "[::1", "[::1]x", "a b", "ntp://"])
    func rejects(_ text: String) {
        #expect(NTPServerAddress(parsing: text) == nil)
    }

    @Test func parsesAnIosNtpStyleHostsFile() throws {
        let text = """
            # ntp.hosts — one server per line
            0.pool.ntp.org
            time.apple.com   # Apple

            [2001:db8::123]:1123
            0.pool.ntp.org
            """
        #expect(try NTPServerAddress.parseHostsFile(text) == [
            NTPServerAddress(host: "0.pool.ntp.org"), NTPServerAddress(host: "time.apple.com"),
            NTPServerAddress(host: "2001:db8::123", port: 1123),
        ])
        let error = expectThrows(NTPHostsFileError(line: 2, text: "bad host:0")) {
            try NTPServerAddress.parseHostsFile("ok.example\nbad host:0\n")
        }
        #expect(error?.line == 2 && error?.text == "bad host:0")
    }
}
#endif

import Foundation
import Testing
@testable import TimeSync
import TimeSyncFixtures
import TimeSyncTesting

/// Where the system refuses its boot session identifier, the boot time tells boots apart, and the
/// clock says so once (without either, nothing is saved: CalibrationKeyTests).
@Suite struct BootTimeFallbackTests {
    let synchronous = ServerClock.Configuration(persistence: PersistencePolicy(writesInBackground: false))

    @Test func theSystemsIdentifierComesFirstThenTheBootTime() {
        #expect(BootSession.identify(sessionID: "9c1d", bootTime: 1_764_000_000) == "9c1d")
        #expect(BootSession.identify(sessionID: nil, bootTime: 1_764_000_000) == "boottime:1764000000")
        #expect(BootSession.identify(sessionID: "", bootTime: 1_764_000_000) == "boottime:1764000000")
        #expect(BootSession.identify(sessionID: nil, bootTime: 0) == nil)
        #expect(BootSession.identify(sessionID: nil, bootTime: -5) == nil)
        #expect(BootSession.identify(sessionID: nil, bootTime: nil) == nil)
        #expect(BootSession.isBootTime("boottime:1764000000"))
        #expect(!BootSession.isBootTime("9c1d"))
    }

    @Test func theBootTimeIsReadFromProcStat() {
        let stat = "cpu  1 2 3 4\nintr 5\nctxt 6\nbtime 1764230400\nprocesses 7\n"
        #expect(BootSession.bootTime(procStat: stat) == 1_764_230_400)
        #expect(BootSession.bootTime(procStat: "cpu 1\n") == nil)
        #expect(BootSession.bootTime(procStat: "btime x\n") == nil)
        #expect(BootSession.bootTime(procStat: "btime -3\n") == nil)
        #expect(BootSession.bootTime(procStat: "btime 99999999999999999999\n") == nil)
    }

    #if os(Linux)
    @Test func thisMachinesBootTimeIsRead() throws {
        let seconds = try #require(BootSession.systemBootTime())
        let uptime = try String(contentsOfFile: "/proc/uptime", encoding: .utf8).split(separator: " ").first.flatMap { Double($0) }
        let now = Date().timeIntervalSince1970
        // btime is now − uptime, in whole seconds (within a time namespace's offset of it, which
        // moves the uptime).
        #expect(abs(Double(seconds) - (now - (uptime ?? 0))) < 2 || uptime == nil)
    }
    #endif

    @Test func aClockOnTheBootTimeSavesRestoresAndSaysSo() throws {
        let store = MemoryCalibrationStore()
        let key = FixedCalibrationKey(seed: 3)
        let base = ManualTimeBase(bootSessionID: BootSession.identify(sessionID: nil, bootTime: 1_764_230_400))
        let warnings = Locked<[String]>([])
        let clock = ServerClock(
            timeBase: base, configuration: synchronous, store: store, keyProvider: key, onWarning: { text in warnings.withLock { $0.append(text) } })
        for _ in 0..<4 {
            clock.calibrate(with: try Fixture.exchange(offset: 5 * Fixture.second, at: base.monotonicNow()))
            base.advance(by: .seconds(16))
        }
        try clock.flush()
        #expect(clock.isSynchronized)
        #expect(warnings.withLock { $0 }.count == 1)
        #expect(warnings.withLock { $0 }.first?.contains("the boot time tells boots apart") == true)
        let restored = ServerClock(timeBase: base, configuration: synchronous, store: store, keyProvider: key)
        #expect(restored.isSynchronized)
        // The same boot under the system's identifier is another identity: not restored as this boot's.
        let other = ManualTimeBase(bootSessionID: "9c1d")
        #expect(!ServerClock(timeBase: other, configuration: synchronous, store: store, keyProvider: key).isSynchronized)
    }

    /// A synchronizer's diagnostics say how its store works when not as asked: on the boot time, or
    /// off when the system tells boots apart neither way; nothing when the boot session identifier
    /// works.
    @Test func theDiagnosticsSayWhenTheBootTimeOrNothingTellsBootsApart() throws {
        let key = FixedCalibrationKey(seed: 4)
        func diagnostics(_ bootSessionID: String?) throws -> SynchronizerDiagnostics {
            let base = ManualTimeBase(bootSessionID: bootSessionID)
            let source = ScriptedTimeSource("a", offset: 0, base: base)
            let sync = try TimeSynchronizer(sources: [source], timeBase: base, store: MemoryCalibrationStore(), keyProvider: key)
            return sync.diagnostics()
        }
        let bootTime = try diagnostics(BootSession.identify(sessionID: nil, bootTime: 1_764_230_400))
        #expect(bootTime.persistence?.hasPrefix("on the boot time: ") == true, "\(String(describing: bootTime.persistence))")
        #expect(bootTime.summary.contains("; store on the boot time: this system refused its boot session identifier"))
        let none = try diagnostics(nil)
        #expect(none.persistence?.hasPrefix("off: this system gives neither a boot session identifier nor its boot time") == true)
        #expect(none.summary.contains("; store off: "))
        let normal = try diagnostics("9c1d")
        #expect(normal.persistence == nil)
        #expect(!normal.summary.contains("store"))
        // The field survives the JSON the CLI prints, and JSON without it still decodes.
        let json = try JSONEncoder().encode(bootTime)
        #expect(try JSONDecoder().decode(SynchronizerDiagnostics.self, from: json) == bootTime)
        var object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        object["persistence"] = nil
        let older = try JSONDecoder().decode(SynchronizerDiagnostics.self, from: try JSONSerialization.data(withJSONObject: object))
        #expect(older.persistence == nil)
    }
}

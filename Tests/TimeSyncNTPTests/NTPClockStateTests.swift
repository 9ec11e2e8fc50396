#if CLI
import Testing
import TimeSync
import TimeSyncServerSupport
import TimeSyncWire
import TimeSyncTestSupport
import TimeSyncNTP
import TimeSyncNTPServer

/// The sans-IO mapping from the kernel's clock state to what the server advertises.
@Suite struct NTPClockStateTests {
    /// What this container's kernel reports (`adjtimex`: `TIME_ERROR`, status `STA_UNSYNC`, maxerror
    /// and esterror 16 s), and the other raw states.
    struct RawCase: Sendable, CustomTestStringConvertible {
        let name: String
        let status: Int32
        let state: Int32
        let maxerror: Int64
        let esterror: Int64
        let expected: NTPClockState
        var testDescription: String { name }
    }

    static let rawCases: [RawCase] = [
        RawCase(
            name: "unsynchronized host (STA_UNSYNC, TIME_ERROR, 16 s)", status: 0x0040, state: 5, maxerror: 16_000_000,
            esterror: 16_000_000,
            expected: NTPClockState(isSynchronized: false, maximumError: .seconds(16), estimatedError: .seconds(16))),
        RawCase(
            name: "synchronized (STA_PLL, TIME_OK)", status: 0x0001, state: 0, maxerror: 1_500, esterror: 20,
            expected: NTPClockState(isSynchronized: true, maximumError: .microseconds(1_500), estimatedError: .microseconds(20))),
        RawCase(
            name: "leap second inserted today", status: 0x0011, state: 1, maxerror: 2_000, esterror: 10,
            expected: NTPClockState(
                isSynchronized: true, maximumError: .milliseconds(2), estimatedError: .microseconds(10), leapSecond: .insert)),
        RawCase(
            name: "leap second deleted today", status: 0x0021, state: 2, maxerror: 2_000, esterror: 10,
            expected: NTPClockState(
                isSynchronized: true, maximumError: .milliseconds(2), estimatedError: .microseconds(10), leapSecond: .delete)),
        RawCase(
            name: "insert and delete at once: not believed", status: 0x0031, state: 0, maxerror: 2_000, esterror: 10,
            expected: NTPClockState(isSynchronized: false, maximumError: .milliseconds(2), estimatedError: .microseconds(10))),
        RawCase(
            name: "TIME_ERROR without STA_UNSYNC (STA_CLOCKERR)", status: 0x1000, state: 5, maxerror: 2_000, esterror: 10,
            expected: NTPClockState(isSynchronized: false, maximumError: .milliseconds(2), estimatedError: .microseconds(10))),
        RawCase(
            name: "the call failed", status: 0, state: -1, maxerror: 0, esterror: 0,
            expected: NTPClockState(isSynchronized: false, maximumError: .zero, estimatedError: .zero)),
        RawCase(
            name: "negative errors read as the 16 s limit", status: 0, state: 0, maxerror: -1, esterror: .min,
            expected: NTPClockState(isSynchronized: true, maximumError: .seconds(16), estimatedError: .seconds(16))),
    ]

    @Test(arguments: rawCases)
    func rawKernelFields(_ row: RawCase) {
        let state = NTPClockState(
            status: row.status, state: row.state, maximumErrorMicroseconds: row.maxerror, estimatedErrorMicroseconds: row.esterror)
        #expect(state == row.expected)
    }

    static let synchronizedPolicy = NTPServerConfiguration.defaultPolicy

    @Test func unsynchronizedHostTellsTheTruth() {
        let policy = NTPClockState.unknown.serverPolicy(synchronized: Self.synchronizedPolicy, localStratum: nil)
        #expect(policy.leap == .unsynchronized)
        #expect(policy.stratum == 16)
        #expect(policy.referenceID == NTPReferenceID(rawValue: 0))
        // Never a perfect source: the kernel's 16 s, not 0.
        #expect(policy.rootDispersion == .seconds(16))
        #expect(NTPShortFormat(policy.rootDispersion).duration >= .seconds(16))
    }

    @Test(arguments: [NTPClockState.LeapSecond.none, .insert, .delete])
    func localStratumServesAnUnsynchronizedClock(leap: NTPClockState.LeapSecond) {
        var state = NTPClockState.unknown
        state.leapSecond = leap
        let policy = state.serverPolicy(synchronized: Self.synchronizedPolicy, localStratum: 3)
        #expect(policy.stratum == 3)
        #expect(policy.referenceID == .local)
        #expect(policy.leap == [.none: .noWarning, .insert: .lastMinuteHas61Seconds, .delete: .lastMinuteHas59Seconds][leap])
        #expect(policy.rootDelay == .zero)
        #expect(policy.rootDispersion == NTPClockState.localRootDispersion)
        #expect(policy.rootDispersion > .zero)
    }

    @Test(arguments: [(UInt8(0), UInt8(1)), (1, 1), (10, 10), (15, 15), (16, 15), (255, 15)])
    func localStratumIsClamped(configured: UInt8, advertised: UInt8) {
        #expect(NTPClockState.unknown.serverPolicy(synchronized: Self.synchronizedPolicy, localStratum: configured).stratum == advertised)
    }

    @Test func synchronizedHostAdvertisesItsStratumAndMaximumError() {
        let state = NTPClockState(
            isSynchronized: true, maximumError: .microseconds(3_250), estimatedError: .microseconds(40), leapSecond: .insert)
        for localStratum in [nil, UInt8(10)] {  // a synchronized host ignores the local stratum
            let policy = state.serverPolicy(synchronized: Self.synchronizedPolicy, localStratum: localStratum)
            #expect(policy.stratum == 2)
            #expect(policy.referenceID == .local)
            #expect(policy.leap == .lastMinuteHas61Seconds)
            #expect(policy.rootDispersion == .microseconds(3_250))
            #expect(policy.rootDelay == .zero)
            #expect(policy.precision == -20)
        }
    }

    @Test func rootDispersionIsNeverLessThanTheEstimateOrTheConfiguredFloor() {
        let state = NTPClockState(isSynchronized: true, maximumError: .microseconds(10), estimatedError: .microseconds(80))
        #expect(state.serverPolicy(synchronized: Self.synchronizedPolicy, localStratum: nil).rootDispersion == .microseconds(80))
        var floor = Self.synchronizedPolicy
        floor.rootDispersion = .milliseconds(5)
        floor.stratum = 3
        let policy = state.serverPolicy(synchronized: floor, localStratum: nil)
        #expect(policy.rootDispersion == .milliseconds(5))
        #expect(policy.stratum == 3)
    }

    @Test func configurationPolicySource() {
        var configuration = NTPServerConfiguration(localStratum: 4)
        #expect(configuration.policySource == .kernel)
        #expect(configuration.advertisedPolicy(clockState: nil).stratum == 4)  // unknown: unsynchronized
        configuration.localStratum = nil
        #expect(configuration.advertisedPolicy(clockState: nil).stratum == 16)
        configuration.policySource = .fixed
        #expect(configuration.advertisedPolicy(clockState: nil) == NTPServerConfiguration.defaultPolicy)
    }

    /// The real kernel is read (Linux and Darwin, 64-bit): whatever this host's state, the reading is
    /// one the server can map, with an error bound in the kernel's range.
    @Test func systemKernelClockReads() throws {
        #if os(Linux) || canImport(Darwin)
        let state = try #require(SystemKernelClock().clockState())
        #expect(state.maximumError >= .zero && state.maximumError <= .seconds(17))
        if !state.isSynchronized {
            #expect(state.serverPolicy(synchronized: Self.synchronizedPolicy, localStratum: nil).leap == .unsynchronized)
        }
        print("this host's kernel clock: \(state)")
        #endif
    }
}
#endif

import Testing
import TimeSync
import TimeSyncFixtures
import TimeSyncTesting

/// "Is the device clock wrong?" from one reading: within the tolerance, ahead, behind, or unknown.
@Suite struct DeviceClockCheckTests {
    /// A clock whose one source puts the server `serverAheadOfWall` seconds ahead of the device's
    /// wall clock, with ±10 ms bounds.
    func clock(serverAheadOfWall seconds: Double, base: ManualTimeBase) throws -> ServerClock {
        let clock = ServerClock(timeBase: base)
        clock.calibrate(with: try Fixture.exchange(offset: Fixture.offset(serverAheadOfWall: seconds, base: base), at: base.monotonicNow()))
        return clock
    }

    @Test func withinTheTolerance() throws {
        let base = ManualTimeBase()
        let check = try clock(serverAheadOfWall: 0.5, base: base).deviceClockCheck(tolerance: .seconds(1))
        guard case .withinTolerance(let offset, let error) = check else {
            Issue.record("\(check)")
            return
        }
        #expect(abs((offset - .milliseconds(500)).secondsValue) < 0.011 && error <= .milliseconds(11), "\(check)")
    }

    /// The server 90 s behind the device: the device is ahead by 90 s.
    @Test func ahead() throws {
        let base = ManualTimeBase()
        let check = try clock(serverAheadOfWall: -90, base: base).deviceClockCheck(tolerance: .seconds(60))
        guard case .ahead(let by, let error) = check else {
            Issue.record("\(check)")
            return
        }
        #expect(abs((by - .seconds(90)).secondsValue) < 0.011 && error <= .milliseconds(11), "\(check)")
    }

    @Test func behind() throws {
        let base = ManualTimeBase()
        let check = try clock(serverAheadOfWall: 90, base: base).deviceClockCheck(tolerance: .seconds(60))
        guard case .behind(let by, let error?) = check else {
            Issue.record("\(check)")
            return
        }
        #expect(abs((by - .seconds(90)).secondsValue) < 0.011 && error <= .milliseconds(11), "\(check)")
    }

    /// Not synchronized, or bounds that straddle the tolerance: the clock cannot tell.
    @Test func unknown() throws {
        let base = ManualTimeBase()
        #expect(ServerClock(timeBase: base).deviceClockCheck(tolerance: .seconds(1)) == .unknown)
        // 1 s ahead with ±10 ms: against a 1 s tolerance, either answer could be true.
        #expect(try clock(serverAheadOfWall: 1, base: base).deviceClockCheck(tolerance: .seconds(1)) == .unknown)
        // Provisional (one of two sources): one liar could have made it.
        let provisional = ServerClock(timeBase: base, configuration: .init(minimumAgreeingSources: 2))
        provisional.calibrate(with: try Fixture.exchange(offset: Fixture.offset(serverAheadOfWall: 90, base: base), at: base.monotonicNow()))
        #expect(provisional.deviceClockCheck(tolerance: .seconds(60)) == .unknown)
    }
}

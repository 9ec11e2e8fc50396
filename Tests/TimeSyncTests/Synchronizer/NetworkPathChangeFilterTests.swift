import Testing
import TimeSync

/// Which path updates resynchronize: not the one a monitor reports when it starts, not a repeat, not
/// an unusable path; a change to a usable path does.
@Suite struct NetworkPathChangeFilterTests {
    /// The filter's answers to a sequence of updates.
    func answers(_ updates: [(satisfied: Bool, path: String)]) -> [Bool] {
        var filter = NetworkPathChangeFilter()
        return updates.map { filter.update(satisfied: $0.satisfied, path: $0.path) }
    }

    @Test func thePathReportedAtStartAndItsRepeatsAreNotChanges() {
        #expect(answers([(true, "en0"), (true, "en0"), (true, "en0")]) == [false, false, false])
    }

    @Test func wifiToCellularAndOfflineToOnlineAreChanges() {
        // Wi-Fi at start; cellular; offline (nothing to measure over); online again on cellular.
        #expect(answers([(true, "en0"), (true, "pdp_ip0"), (false, ""), (true, "pdp_ip0")]) == [false, true, false, true])
    }

    @Test func startingOfflineThenComingOnlineIsAChange() {
        #expect(answers([(false, ""), (true, "en0")]) == [false, true])
    }
}

import Testing
import TimeSync
@testable import TimeSyncHTTP

/// A polled HTTP source never steps down: once a response was read by an earlier scheme
/// (`TimeSync-Time`), one read by a later scheme (`Date`) is refused.
@Suite struct HTTPSchemeFloorTests {
    let schemes: [HTTPTimeScheme.Kind] = [.timeHeader, .unixTimestamp, .date]

    @Test func aResponseWithoutTheTimeHeaderIsRefusedOnceTheServerSentIt() throws {
        let floor = HTTPSchemeFloor()
        try floor.check(.timeHeader, among: schemes, source: "api.example.com")
        do {
            try floor.check(.date, among: schemes, source: "api.example.com")
            Issue.record("a Date-only response was taken after TimeSync-Time")
        } catch {
            #expect(error.code == .timeHeaderWithdrawn)
            #expect(error.description.contains("api.example.com answered by header before, now by date"), "\(error)")
        }
        try floor.check(.timeHeader, among: schemes, source: "api.example.com")
    }

    /// A server that never sent the better header may be read by the later one; once it does, that
    /// becomes the floor.
    @Test func aSourceMayStartLowAndOnlyClimbs() throws {
        let floor = HTTPSchemeFloor()
        try floor.check(.date, among: schemes, source: "s")
        try floor.check(.date, among: schemes, source: "s")
        try floor.check(.unixTimestamp, among: schemes, source: "s")
        #expect(throws: HTTPTimeError.self) { try floor.check(.date, among: schemes, source: "s") }
        try floor.check(.timeHeader, among: schemes, source: "s")
        #expect(throws: HTTPTimeError.self) { try floor.check(.unixTimestamp, among: schemes, source: "s") }
    }
}

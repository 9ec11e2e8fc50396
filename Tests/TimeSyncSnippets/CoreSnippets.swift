#if CLI
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking  // URLSession on Linux
#endif
import Testing
import TimeSync
import TimeSyncHTTP
import TimeSyncTesting

// The Swift blocks of TimeSync's articles (and TimeSyncTesting's), compiled as written with the
// imports this file has. The names they use and do not define are the parameters of the function
// around them. `DocumentationSnippetTests` checks the documentation still says exactly this.

/// Where an article sets a label's text (a `UILabel` in an app).
@MainActor final class SnippetLabel {
    var text: String?
}

@MainActor private func overview(
    cacheURL: URL, saleStart: UnixTime, saleEnd: UnixTime, enableBuyButton: () -> Void, label: SnippetLabel
) async throws {
    // snippet: overview
    // Sources: your API (`TimeSync-Time`, a Unix timestamp header, `Date`), NTP, NTS, Roughtime, any HTTPS `Date`.
    let sync = try TimeSynchronizer(
        sources: [.api(URL(string: "https://api.example.com/time")!)], store: FileCalibrationStore(url: cacheURL))
    sync.start()
    let clock = sync.clock

    let reading = clock.reading()                      // estimate, earliest, latest, status
    if clock.position(in: saleStart..<saleEnd) == .within { enableBuyButton() }

    for try await tick in clock.countdown(to: saleStart) { label.text = tick.formatted }
    // end snippet
    _ = reading
}

private func sourceRemainingTime(clock: ServerClock, fetchSecondsUntilSale: () async throws -> Int) async throws {
    // snippet: source-remaining-time
    let t1 = clock.timeBase.monotonicNow()
    let startsIn = try await fetchSecondsUntilSale()   // your API call
    let t4 = clock.timeBase.monotonicNow()
    let start = try DeadlineInterval.remaining(
        .seconds(startsIn), resolution: .seconds(1), requestSent: t1, responseReceived: t4)
    // end snippet
    _ = start
}

@MainActor private func countdownLabel(clock: ServerClock, saleStart: UnixTime, label: SnippetLabel) {
    // snippet: countdown-label
    let task = Task { @MainActor in
        for try await tick in clock.countdown(to: saleStart) {
            label.text = tick.formatted          // "1d 02:03:04", "1d 02:03:03", …
        }
        // The final tick has passed: refetch the sale's state.
    }
    // end snippet
    _ = task
}

@MainActor private func countdownCertain(clock: ServerClock, saleStart: UnixTime, label: SnippetLabel) async throws {
    // snippet: countdown-certain
    for try await tick in clock.countdown(to: saleStart, untilCertain: true) {
        label.text = tick.formatted
    }
    // end snippet
}

@MainActor private func countdownRemaining(clock: ServerClock, fetchSecondsUntilSale: () async throws -> Int, label: SnippetLabel) async throws {
    // snippet: countdown-remaining
    let t1 = clock.timeBase.monotonicNow()
    let startsIn = try await fetchSecondsUntilSale()   // your API call
    let t4 = clock.timeBase.monotonicNow()
    let start = try DeadlineInterval.remaining(
        .seconds(startsIn), resolution: .seconds(1), requestSent: t1, responseReceived: t4)

    for try await tick in Countdown(to: start, timeBase: clock.timeBase, untilCertain: true) {
        label.text = tick.formatted
    }
    // end snippet
}

private func gettingStartedDiagnostics(sync: TimeSynchronizer) {
    // snippet: getting-started-diagnostics
    let diagnostics = sync.diagnostics()
    print(diagnostics.summary)                     // "synchronized by time1.example.com, …"
    for source in diagnostics.sources {
        print(source.source, source.state, source.nextPollReason.map { "next: \($0)" } ?? "", source.lastFailureReason ?? "no failure")
    }
    for line in diagnostics.log { print(line) }   // the latest events, oldest first
    // end snippet
}

private func gettingStartedReading(clock: ServerClock) {
    // snippet: getting-started-reading
    let now = clock.now                               // UnixTime
    let reading = clock.reading()
    print(reading.serverTime, reading.earliest, reading.latest, reading.status)
    print(reading.unixMilliseconds, reading.date, reading.error)
    // end snippet
    _ = now
}

private func gettingStartedPosition(
    clock: ServerClock, saleStart: UnixTime, saleEnd: UnixTime,
    enableBuyButton: () -> Void, disableBuyButton: () -> Void, showSpinner: () -> Void
) {
    // snippet: getting-started-position
    switch clock.position(in: saleStart..<saleEnd) {
    case .within: enableBuyButton()           // certainly open
    case .before, .after: disableBuyButton()  // certainly closed
    case .uncertain: showSpinner()            // too close to an edge to tell, or not synchronized
    }
    // end snippet
}

private func gettingStartedClockChanges(sync: TimeSynchronizer, rescheduleNotifications: @escaping @Sendable () -> Void) {
    // snippet: getting-started-clock-changes
    Task {
        for await event in sync.events() {
            if case .wallClockChanged = event { rescheduleNotifications() }
        }
    }
    // end snippet
}

private func boundsSaleStarted(clock: ServerClock, saleStart: UnixTime) {
    // snippet: bounds-sale-started
    let reading = clock.reading()
    let started = reading.isSynchronized && reading.earliest >= saleStart
    let notYet = reading.isSynchronized && reading.latest < saleStart
    // end snippet
    _ = (started, notYet)
}

private func boundsDeviceClock(clock: ServerClock, showBanner: (String) -> Void) {
    // snippet: bounds-device-clock
    if case .ahead(let by, _) = clock.deviceClockCheck(tolerance: .seconds(60)) {
        showBanner("Your device's clock is \(by) fast")
    }
    // end snippet
}

private func boundsFloor(
    storeURL: URL, trialEnd: UnixTime, lockTrialFeatures: () -> Void, offerStart: UnixTime, offerEnd: UnixTime, hideOffer: () -> Void
) {
    // snippet: bounds-floor
    let clock = ServerClock(store: FileCalibrationStore(url: storeURL))
    if clock.hasCertainlyPassed(trialEnd) {      // also right after a reboot, offline
        lockTrialFeatures()
    }
    switch clock.reading().position(in: offerStart..<offerEnd) {
    case .after: hideOffer()                    // the whole window lies before the floor
    default: break                              // .uncertain until a source answers
    }
    // end snippet
}

/// TimeSyncTesting's example needs no network: it runs as well as compiles.
@Test func theTestingExampleRuns() throws {
    // snippet: testing-manual-time
    let base = ManualTimeBase()
    let clock = ServerClock(timeBase: base)
    try clock.calibrate(to: UnixTime(seconds: 1_790_000_000), source: "api")   // as if "api" answered just now
    base.advance(by: .seconds(60))
    #expect(clock.reading().status == .synchronized)
    // end snippet
}
#endif

#if CLI
import Foundation
import Logging
#if canImport(FoundationNetworking)
import FoundationNetworking  // URLSession and URLRequest on Linux
#endif
import TimeSync
import TimeSyncAsyncHTTPClient
import TimeSyncHTTP

// The Swift blocks about HTTP (TimeSyncHTTP over URLSession, TimeSyncAsyncHTTPClient), compiled as
// written with the imports this file has. Never called: they would reach the network. The names they
// use and do not define are the parameters of the function around them. `DocumentationSnippetTests`
// checks the documentation still says exactly this.

private func quickStart() async throws {
    // snippet: quick-start
    let api = TimeSource.api(
        URL(string: "https://api.example.com/time")!,
        schemes: [.timeSyncTime, .unixTimestamp(header: "Response-Timestamp", unit: .milliseconds(1)), .date],
        reference: .service("api.example.com"))
    let sync = try TimeSynchronizer(sources: [api], store: UserDefaultsCalibrationStore())
    // Subscribe before starting, so no event is missed: `.noSourceAnswered` comes as soon as a round of
    // polls brought no answer at all, each source with its reason.
    let events = sync.events()
    Task {
        for await event in events {
            if case .noSourceAnswered(let errors) = event {
                print("no time source answered:", errors.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "; "))
            }
        }
    }
    sync.start()

    // With this one source, its first answer makes the clock `.synchronized`. With several sources the
    // first reading is `.provisional` (one reply could be a liar's) until min(3, sources) agree; it is
    // usable, with its bounds. After a relaunch the stored calibration answers at once (`isRestored`).
    if let first = await sync.firstReading(timeout: .seconds(5)) {
        print(first.status, first.serverTime, "±", first.error)
    } else {
        // Unsynchronized, the clock reads this device's own time; the summary says why, in one line.
        print(sync.diagnostics().summary)
    }

    // Has the sale certainly started? Only `.within` is a yes.
    let saleStart = UnixTime(seconds: 1_798_761_600)  // 2027-01-01T00:00:00Z, server time
    switch sync.clock.position(in: saleStart..<saleStart.advanced(by: .seconds(3600))) {
    case .within: print("buy now")
    case .before, .after: print("closed")
    case .uncertain: print("checking…")  // the bounds straddle an edge, or the clock is not synchronized yet
    }

    // A countdown that ignores the user changing the clock and resumes right after sleep.
    for try await tick in sync.clock.countdown(to: saleStart) { print(tick.formatted) }
    // end snippet
}

private func sourceHTTPAPI() throws {
    // snippet: source-http-api
    let api = TimeSource.api(
        URL(string: "https://api.example.com/time")!,
        schemes: [.timeSyncTime, .unixTimestamp(header: "Response-Timestamp", unit: .milliseconds(1))],
        reference: .service("api.example.com"))
    let sync = try TimeSynchronizer(sources: [api])
    sync.start()
    // end snippet
}

private func sourceDateRefinement(clock: ServerClock) async throws {
    // snippet: source-date-refinement
    let client = TimeSource.httpClient()        // no redirects, no connection retries
    let sync = try TimeSynchronizer(sources: [
        .https("https://www.example.com/", client: client), .https("https://www.example.org/", client: client),
        .https("https://www.example.net/", client: client),
    ])
    sync.start()
    // end snippet
}

private func gettingStartedSync() async throws {
    // snippet: getting-started-sync
    let api = TimeSource.api(URL(string: "https://api.example.com/time")!, reference: .service("api"))
    let sync = try TimeSynchronizer(sources: [api], store: UserDefaultsCalibrationStore())
    sync.start()
    if let reading = await sync.firstReading(timeout: .seconds(5)) {
        print(reading.status, reading.serverTime, "±", reading.error)
    } else {
        // Nothing answered in time: each source says why (no reply, refused, a response it rejected…).
        for source in sync.diagnostics().sources {
            print("\(source.source): \(source.state)", source.lastFailureReason ?? "no answer yet")
        }
    }
    // end snippet
}

private func gettingStartedClock() {
    // snippet: getting-started-clock
    let caches = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask)[0]
    let clock = ServerClock(store: FileCalibrationStore(url: caches.appendingPathComponent("TimeSync.json")))
    let observer = HTTPTimeObserver(source: "api.example.com", timeBase: clock.timeBase)
    // end snippet
    _ = observer
}

private func gettingStartedLoad(clock: ServerClock, observer: HTTPTimeObserver) {
    // snippet: getting-started-load
    func load(_ request: URLRequest) async throws -> Data {
        // Calibrates the clock from the response; one without a usable time leaves it as it was.
        let (data, _) = try await URLSession.shared.data(for: request, calibrating: clock, observer: observer)
        return data
    }
    // end snippet
    _ = load
}

private func httpObserver(request: URLRequest) async throws {
    // snippet: http-observer
    let clock = ServerClock()
    let observer = HTTPTimeObserver(source: "api.example.com", timeBase: clock.timeBase)

    let (data, _) = try await URLSession.shared.data(for: request, calibrating: clock, observer: observer)
    // end snippet
    _ = data
}

private func asyncHTTPClientMeasure() async throws {
    // snippet: async-http-client-measure
    let client = TimeSource.httpClient()
    let api = try TimeSource.api("https://api.example.com/time", client: client, logger: Logger(label: "time"))
    let sync = try TimeSynchronizer(sources: [api])
    sync.start()
    // end snippet
}

private func servingOtherFramework(nonceField: String?) {
    // snippet: serving-other-framework
    let received = UnixTime(Date())                       // as early as possible
    // … handle the request …
    // `nonceField`: the request's `TimeSync-Nonce` value, if any.
    let value = HTTPTimeScheme.timeHeaderValue(serverReceive: received, serverTransmit: UnixTime(Date()), nonceField: nonceField)
    // Set `TimeSync-Time: <value>` on the response (when not nil), as the last thing before writing it.
    // end snippet
    _ = value
}
#endif

import TimeSync

/// What `timesync watch --json` adds to each update from the synchronizer's diagnostics: instants as
/// seconds before now (the monotonic clock means nothing outside the process), durations in seconds.
struct WatchDiagnostics: Encodable {
    struct NextPoll: Encodable {
        var source: String
        /// Seconds until it.
        var `in`: Double
        var reason: String
    }

    struct Success: Encodable {
        /// Seconds since it.
        var ago: Double
        var roundTrip: Double?
        var samples: Int
    }

    struct Failure: Encodable {
        /// Seconds since it.
        var ago: Double
        var reason: String
    }

    struct Source: Encodable {
        var source: String
        var lastSuccess: Success?
        var lastFailure: Failure?
    }

    /// Seconds since the clock's calibration.
    var calibrationAge: Double?
    var nextPoll: NextPoll?
    var sources: [Source]

    init(_ diagnostics: SynchronizerDiagnostics, now: MonotonicInstant) {
        calibrationAge = diagnostics.calibrationAge?.secondsValue
        nextPoll = diagnostics.nextPoll.map { NextPoll(source: $0.source, in: $0.wait.secondsValue, reason: $0.reason.rawValue) }
        sources = diagnostics.sources.map { source in
            Source(
                source: source.source,
                lastSuccess: source.lastSuccess.map {
                    Success(ago: $0.time.duration(to: now).secondsValue, roundTrip: $0.roundTrip?.secondsValue, samples: $0.samples)
                },
                lastFailure: source.lastFailure.map { Failure(ago: $0.time.duration(to: now).secondsValue, reason: $0.reason) })
        }
    }
}

extension UpdatePrinter.Update {
    /// The update with the synchronizer's diagnostics at `now`.
    func adding(_ diagnostics: SynchronizerDiagnostics, now: MonotonicInstant) -> Self {
        var update = self
        update.diagnostics = WatchDiagnostics(diagnostics, now: now)
        return update
    }
}

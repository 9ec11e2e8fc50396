/// What a ``TimeSynchronizer`` did and will do next, for reports and support: the clock's status
/// and age, each source's last success and failure, a short history, and when the next poll comes
/// and why. Codable, so a command-line tool can print it as JSON.
///
/// ```swift
/// let diagnostics = sync.diagnostics()
/// if let next = diagnostics.nextPoll {
///     print("next poll of \(next.source) in \(next.wait): \(next.reason)")
/// }
/// ```
public struct SynchronizerDiagnostics: Sendable, Hashable, Codable {
    /// The next poll due across the sources.
    package struct NextPoll: Sendable, Hashable, Codable {
        /// The source to be polled.
        package var source: String
        /// When, on the monotonic clock.
        package var time: MonotonicInstant
        /// How long until then (zero when it is due now).
        package var wait: Duration
        /// Why then.
        package var reason: PollReason

        package init(source: String, time: MonotonicInstant, wait: Duration, reason: PollReason) {
            self.source = source
            self.time = time
            self.wait = wait
            self.reason = reason
        }
    }

    /// One notable thing the synchronizer did, with when it did it.
    package struct Entry: Sendable, Hashable, Codable {
        /// What happened.
        package enum Kind: Sendable, Hashable, Codable {
            /// An event the synchronizer's ``TimeSynchronizer/events(bufferingNewest:)`` stream
            /// carried: a measurement, a failure, a kiss, a fallback, a resynchronization.
            case event(TimeSynchronizerEvent)
            /// The clock's status changed to this.
            case statusChanged(SynchronizationStatus)
            /// The source stopped answering and its name was resolved again.
            case resolved(source: String)
            /// The synchronized time contradicted the floor kept across reboots, which was lowered by
            /// `by` (`ServerClockEvent.floorLowered(by:reason:)`).
            case floorLowered(by: Duration, reason: String)
        }

        /// When it happened, on the monotonic clock.
        package var time: MonotonicInstant
        /// What happened.
        package var kind: Kind
    }

    /// The clock's status.
    public var status: SynchronizationStatus
    /// How old the clock's calibration is, `nil` before the first.
    public var calibrationAge: Duration?
    /// The next poll due, `nil` when none is (the synchronizer is not running, or every source
    /// stopped or waits for a reply).
    package var nextPoll: NextPoll?
    /// Each source, in the order they were given to the synchronizer (the fallback sources last).
    public var sources: [SourceDiagnostics]
    /// The latest notable events, oldest first: at most ``historyLength``.
    package var history: [Entry]
    /// How the clock's store works when not as asked, `nil` when it does (or there is none): `off:`
    /// and why calibrations are neither restored nor saved (no way to tell boots apart, a store that
    /// cannot be used), `not restored:` (no key yet), or `on the boot time:` where the system refused
    /// its boot session identifier and the boot time tells boots apart instead.
    public var persistence: String?
    /// What the running synchronizer follows by itself for hints that its calibration may be
    /// stale, a line each (the app's lifecycle, the network path, wall-clock changes), or what it
    /// cannot hear where it runs (a widget, Linux) and what to do instead; empty while it is not
    /// running or when `TimeSynchronizer.Configuration.followsSystemEvents` is off.
    public var observing: [String] = []

    /// The latest notable events, oldest first (at most 32), a line each: when, on the monotonic
    /// clock, and what happened (a measurement, a failure, a kiss, a fallback, a status change).
    public var log: [String] { history.map { "\($0.time): \($0.description)" } }

    /// How many events ``history`` keeps: 32.
    package static let historyLength = 32

    /// One line saying where the clock stands and why, for a log or a support screen. An
    /// unsynchronized clock reads the device's own time, and this says so, with each source's last
    /// failure or that none has answered yet:
    ///
    /// ```swift
    /// let now = TimeSynchronizer.shared.clock.now
    /// print(TimeSynchronizer.shared.diagnostics().summary)
    /// // unsynchronized: the clock reads this device's own time; none of 8 sources has answered yet …
    /// ```
    public var summary: String {
        let failures = sources.compactMap { source in source.lastFailure.map { "\(source.source): \($0.reason)" } }
        let waiting = sources.filter { $0.state == .pending && $0.lastFailure == nil }.count
        func why() -> String {
            if !failures.isEmpty {
                let pending = waiting > 0 ? "; \(waiting) not answered yet" : ""
                return "no source answered (\(failures.joined(separator: "; "))\(pending))"
            }
            if sources.isEmpty { return "it has no source" }
            if nextPoll == nil, waiting == sources.count { return "none of its \(sources.count) sources has been asked: call start()" }
            return "none of \(sources.count) sources has answered yet"
        }
        let store = persistence.map { "; store \($0)" } ?? ""
        return state(why) + store
    }

    private func state(_ why: () -> String) -> String {
        let selected = sources.filter { $0.state == .selected }.map(\.source)
        switch status {
        case .synchronized:
            return "synchronized by \(selected.isEmpty ? "its calibration" : selected.joined(separator: ", "))"
        case .provisional:
            return "provisional: \(selected.count) source(s) agree (\(selected.joined(separator: ", "))), fewer than the clock asks for, or the latest measurement contradicts the earlier ones; usable with its bounds"
        case .noMajority:
            return "no majority: the sources disagree and fewer than half agree on one time; the last calibration ages with its bounds"
        case .floorOnly:
            return "floor only: after a reboot only a lower bound on server time is known; \(why())"
        case .unsynchronized:
            return "unsynchronized: the clock reads this device's own time; \(why())"
        }
    }
}

/// What a ``TimeSynchronizer`` knows of one source's polling, for ``SynchronizerDiagnostics``.
public struct SourceDiagnostics: Sendable, Hashable, Codable {
    /// A poll that brought samples.
    package struct Success: Sendable, Hashable, Codable {
        /// When its result came in, on the monotonic clock.
        package var time: MonotonicInstant
        /// The round trip of its last sample (the exchange's span on this device's clock), when it
        /// brought one.
        package var roundTrip: Duration?
        /// How many samples it brought.
        package var samples: Int

        package init(time: MonotonicInstant, roundTrip: Duration?, samples: Int) {
            self.time = time
            self.roundTrip = roundTrip
            self.samples = samples
        }
    }

    /// A poll that brought no sample.
    package struct Failure: Sendable, Hashable, Codable {
        /// When its result came in, on the monotonic clock.
        package var time: MonotonicInstant
        /// Why: the error, or the server's refusal.
        package var reason: String

        package init(time: MonotonicInstant, reason: String) {
            self.time = time
            self.reason = reason
        }
    }

    /// Where the source stands.
    public enum State: String, Sendable, Hashable, Codable {
        /// Its samples agree with the majority the clock follows now.
        case selected
        /// It answers, but outside the majority: its time is not used.
        case falseticker
        /// It answers, but the sources have no majority now: nobody is selected.
        case unselected
        /// Its last reply contradicts its earlier ones and is held until a second reply confirms
        /// a step (or one refutes it); its time is not used meanwhile.
        case suspect
        /// Its last reply was a Kiss-o'-Death (see ``SourceDiagnostics/refusal``): `RATE` slows the
        /// polling down, `DENY` and `RSTR` stop it.
        case kissed
        /// It answers that its own clock is not synchronized (NTP leap indicator 3 or stratum 16).
        case unsynchronized
        /// Two different replies came to one request: someone on the path answered besides the
        /// server. The exchange was discarded.
        case conflictingReplies
        /// Its last eight polls brought no usable reply.
        case unreachable
        /// No reply yet.
        case pending
        /// A fallback source that is not polled while the main sources answer (its time is not
        /// used unless the clock still follows its earlier samples: then it shows `selected`).
        case standingBy
    }

    /// The source's name.
    public var source: String
    /// Where it stands.
    public var state: State
    /// Its own last measurement of server time − this device's wall clock (the middle of its
    /// sample's bounds), when it answered.
    public var wallClockOffset: Duration?
    /// When that sample was taken (its reply's arrival, on the monotonic clock): how old
    /// ``wallClockOffset`` is.
    public var lastSampleTime: MonotonicInstant?
    /// For a `kissed` source: the server's word for its refusal (`RATE`, `DENY`, `RSTR`, `HTTP 429`…).
    public var refusal: String?
    /// Polls sent.
    public var polls: Int
    /// NTP's reachability register: the last eight polls, newest in the lowest bit.
    public var reachability: UInt8
    /// Its last poll that brought samples, if any.
    package var lastSuccess: Success?
    /// Its last poll that brought none, if any.
    package var lastFailure: Failure?
    /// When its last poll that brought samples ended, on the monotonic clock; `nil` before one did.
    public var lastSuccessTime: MonotonicInstant? { lastSuccess?.time }
    /// That poll's round trip, when its samples were exchanges.
    public var lastRoundTrip: Duration? { lastSuccess?.roundTrip }
    /// When its last poll that brought no sample ended; `nil` before one did.
    public var lastFailureTime: MonotonicInstant? { lastFailure?.time }
    /// Why that poll brought no sample: the error's message, or what the server's refusal said.
    public var lastFailureReason: String? { lastFailure?.reason }
    /// The samples of it the clock's estimator holds now.
    public var clockSamples: Int
    /// When it is polled next, `nil` when it is not (stopped, standing by, awaiting a reply, or the
    /// synchronizer is not running).
    public var nextPoll: MonotonicInstant?
    /// Why then, when it is polled.
    package var nextPollCause: PollReason?
    /// Why then, when it is polled: `burst`, `backoff`, `targetError`, `slowDown` (the server asked
    /// for fewer requests), `retryAfter`, `budget`, `resolve`, ….
    public var nextPollReason: String? { nextPollCause?.rawValue }
}

extension SynchronizerDiagnostics.Entry: CustomStringConvertible {
    /// What happened, in a few words.
    package var description: String {
        switch kind {
        case .event(let event): "\(event)"
        case .statusChanged(let status): "the status became \(status)"
        case .resolved(let source): "\(source) stopped answering; its name was resolved again"
        case .floorLowered(let by, let reason): "the floor was lowered by \(by): \(reason)"
        }
    }
}

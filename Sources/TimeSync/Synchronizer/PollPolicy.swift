/// How often a synchronizer polls one source (an NTP server, an HTTP endpoint, any `SourceDriver`).
package struct PollPolicy: Sendable, Hashable {
    /// The floor below which the steady poll interval never goes: 16 s (NTP's `MINPOLL`, 2⁴ s).
    package static let pollFloor: Duration = .seconds(16)

    /// Requests in the initial burst. Default 4 (ntpd's and chrony's `iburst`).
    package var burstCount: Int
    /// Spacing of the burst's requests. Default 2 s.
    package var burstInterval: Duration
    /// The first steady poll interval after the burst, and the shortest; never below ``pollFloor``.
    /// Default 64 s.
    package var minimumInterval: Duration
    /// The longest poll interval the backoff reaches. Default 1024 s.
    package var maximumInterval: Duration
    /// The error the clock should keep (half the width of its bounds), when the caller reports it:
    /// a sample that leaves the error above this halves the interval (down to the floor) instead of
    /// doubling it; at most half of it, the interval doubles; between, it stays. When the caller
    /// also says how the error grows until the next poll (a ``TimeSynchronizer`` does), the interval
    /// is halved until the error at its end is within the target too. `nil`: always back off (the
    /// interval doubles after every poll).
    package var targetError: Duration?

    /// Creates a policy; intervals below ``pollFloor`` are raised to it, a maximum below the
    /// minimum is raised to the minimum.
    package init(
        burstCount: Int = 4, burstInterval: Duration = .seconds(2), minimumInterval: Duration = .seconds(64),
        maximumInterval: Duration = .seconds(1024), targetError: Duration? = nil
    ) {
        self.targetError = targetError.map { max(.nanoseconds(1), $0) }
        self.burstCount = max(1, burstCount)
        self.burstInterval = max(.zero, burstInterval)
        self.minimumInterval = max(Self.pollFloor, minimumInterval)
        self.maximumInterval = max(self.minimumInterval, maximumInterval)
    }
}

extension PollPolicy {
    /// The policy for a source the clock trusts alone (a synchronizer with one source, or one whose
    /// clock needs a single agreeing source).
    ///
    /// With no other source to outvote it, only the source's own next sample can show that it broke
    /// the model the bounds assume (a step, or a slew faster than `serverSlew`). The interval is
    /// therefore capped so that a source slewing at twice the allowance leaves the bounds by at most
    /// `targetError` before its next sample reveals it: `targetError / serverSlew` (500 s for the
    /// default 250 ms and 500 ppm, never below ``minimumInterval``); a step is revealed within that
    /// interval too. With `serverSlew` 0 (steady servers assumed) nothing is capped.
    /// - Returns: The policy with ``maximumInterval`` capped.
    package func trustingOneSource(targetError: Duration, serverSlew: Double) -> PollPolicy {
        guard serverSlew > 0, serverSlew.isFinite else { return self }
        let seconds = targetError.secondsValue / serverSlew
        guard seconds.isFinite, seconds < maximumInterval.secondsValue else { return self }
        var policy = self
        policy.maximumInterval = max(minimumInterval, .seconds(double: seconds))
        return policy
    }
}

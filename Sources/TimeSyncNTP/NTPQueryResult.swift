import TimeSync
import TimeSyncWire

/// What a one-shot query of an NTP server found, relative to the device's wall clock.
///
/// ``wallClockOffset`` is server time − local wall clock (positive when the server is ahead), the quantity
/// `sntp` and `ntpdig` print; ``bounds`` are hard bounds on it and ``error`` their half-width.
package struct NTPQueryResult: Sendable {
    /// The server as asked for.
    package var server: NTPServerAddress
    /// The IP address that answered.
    package var address: String
    /// Best estimate of server time − local wall clock.
    package var wallClockOffset: Duration
    /// Hard bounds on server time − local wall clock, in nanoseconds.
    package var bounds: OffsetInterval
    /// Half the width of ``bounds`` (`WallClockOffset.error`).
    package var error: Duration
    /// The lowest round-trip delay of the samples (less the server's processing time).
    package var delay: Duration
    /// The stratum of the last reply.
    package var stratum: UInt8
    /// The reference identifier of the last reply.
    package var referenceID: NTPReferenceID
    /// The leap indicator of the last reply.
    package var leap: NTPLeapIndicator
    /// The root distance (root delay / 2 + root dispersion) of the last reply.
    package var rootDistance: Duration
    /// The local wall clock when the result was computed.
    package var deviceTime: UnixTime
    /// The server's time at that moment (estimate).
    package var serverTime: UnixTime
    /// The samples (θ = server time − monotonic time) the result combines.
    package var samples: [OffsetSample]
    /// The core estimator's calibration from those samples.
    package var calibration: Calibration

    /// Combines the replies of one query with `SampleConsensus` (the largest set of samples that agree,
    /// when it is a strict majority); the server's fields (stratum, leap, …) come from the replies
    /// the majority agrees with.
    /// - Parameters:
    ///   - replies: The validated replies, in order.
    ///   - samples: Their samples, one a reply.
    /// - Throws: `SampleConsensusError` when no majority agrees.
    package init(
        server: NTPServerAddress, address: IPEndpoint, consensusOf replies: [NTPReply], samples: [OffsetSample], timeBase: any TimeBase
    ) throws(SampleConsensusError) {
        let consensus = try SampleConsensus(samples)
        let agreeing = Set(consensus.samples)
        let kept = zip(replies, samples).filter { agreeing.contains($0.1) }.map(\.0)
        self.init(
            server: server, address: address, calibration: consensus.calibration, replies: kept, samples: consensus.samples,
            timeBase: timeBase)
    }

    /// Builds a result from a calibration, converting θ (server − monotonic) to server − wall with a
    /// monotonic/wall/monotonic reading of the time base; the reading's spread widens the bounds.
    init(
        server: NTPServerAddress, address: IPEndpoint, calibration: Calibration, replies: [NTPReply],
        samples: [OffsetSample], timeBase: any TimeBase
    ) {
        let wall = WallClockOffset(calibration, pair: timeBase.wallClockPair())
        let last = replies[replies.count - 1]
        self.server = server
        self.address = address.address.description
        self.wallClockOffset = wall.estimate
        self.bounds = wall.bounds
        self.error = wall.error
        self.delay = .nanoseconds(samples.map(\.delay).min() ?? 0)
        self.stratum = last.packet.stratum
        self.referenceID = last.packet.referenceID
        self.leap = last.packet.leap
        self.rootDistance = last.rootDistance
        self.deviceTime = wall.deviceTime
        self.serverTime = wall.serverTime
        self.samples = samples
        self.calibration = calibration
    }
}

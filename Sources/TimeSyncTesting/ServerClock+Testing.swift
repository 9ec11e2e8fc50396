import TimeSync

extension ServerClock {
    /// Calibrates the clock as if `source` had just answered, at once, that its time is `serverTime`,
    /// known to within `uncertainty`: what a test needs to put a clock in a known state without a
    /// server. The clock must stand on a ``ManualTimeBase`` (or another time base the test controls).
    /// - Throws: `SampleError` when `serverTime` or `uncertainty` is out of range.
    public func calibrate(to serverTime: UnixTime, source: String = "test", uncertainty: Duration = .zero) throws {
        let now = timeBase.monotonicNow()
        calibrate(with: try OffsetSample.exchange(
            source: source, requestSent: now, serverReceive: serverTime, serverTransmit: serverTime, responseReceived: now,
            serverUncertainty: uncertainty))
    }
}

extension ScriptedTimeSource {
    /// This server as a source of a `TimeSynchronizer` (on the same ``ManualTimeBase``).
    public var source: TimeSource { TimeSource(self) }
}

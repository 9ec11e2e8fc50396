extension ServerClock {
    /// The server time that corresponds to a device wall-clock time.
    public func serverTime(forDeviceTime deviceTime: UnixTime) -> UnixTime {
        let pair = timeBase.wallClockPair()
        return reading(at: pair.monotonic(at: deviceTime)).serverTime
    }

    /// The device wall-clock time that corresponds to a server time: what to hand to APIs that
    /// schedule on the device clock (local notifications, timers).
    public func deviceTime(forServerTime serverTime: UnixTime) -> UnixTime {
        let pair = timeBase.wallClockPair()
        return pair.wall(at: monotonicInstant(forServerTime: serverTime, now: pair.monotonic, wall: pair.wall))
    }

    /// The monotonic instant at which the estimate reaches `serverTime`; before the first
    /// calibration, the instant the device's wall clock reaches it.
    func monotonicInstant(forServerTime serverTime: UnixTime, now monotonic: MonotonicInstant, wall: @autoclosure () -> UnixTime) -> MonotonicInstant {
        guard let model = publishedModel else {
            return WallClockPair(monotonic: monotonic, wall: wall()).monotonic(at: serverTime)
        }
        return model.monotonicInstant(forServerTime: serverTime)
    }
}

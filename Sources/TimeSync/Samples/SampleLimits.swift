/// The sane range of every value that reaches a clock from the network or from disk.
///
/// Values are checked here, where they enter, and a value beyond its limit is a typed
/// `SampleError`; arithmetic after the door saturates. The limits are far wider than anything a
/// working server or network produces, and narrow enough that no sum or difference of admitted
/// values can overflow `Int64` nanoseconds.
package enum SampleLimits {
    /// Server times a sample may carry: 1900-01-01T00:00:00Z (the start of NTP era 0) up to, not
    /// including, 2200-01-01T00:00:00Z. A server claiming a time outside this range is broken or
    /// lying; `SampleError.timeOutOfRange`.
    package static let serverTimes: Range<UnixTime> =
        UnixTime(nanoseconds: -2_208_988_800 * 1_000_000_000)..<UnixTime(nanoseconds: 7_258_118_400 * 1_000_000_000)

    /// Monotonic instants a sample may carry: from boot (0) to 200 years of uptime. Clocks read by
    /// this library always lie inside; an instant outside came from a corrupt store.
    package static let monotonicInstants: ClosedRange<Int64> = 0...(200 * 365 * 86_400 * 1_000_000_000)

    /// The longest exchange (t4 − t1) a sample may span: one hour. An exchange that took longer
    /// bounds nothing useful; `SampleError.spanTooLong`.
    package static let maximumSpan: Duration = .seconds(3600)

    /// The largest uncertainty a server may claim for its own stamps: 16 s, NTP's `MAXDISP`. A server
    /// that far off its reference does not know the time; `SampleError.uncertaintyOutOfRange`.
    package static let maximumServerUncertainty: Duration = .seconds(16)

    /// The coarsest timestamp resolution a sample may have: one hour (an HTTP `Date` has one
    /// second); `SampleError.negativeResolution` below zero, `SampleError.resolutionOutOfRange`
    /// above.
    package static let maximumResolution: Duration = .seconds(3600)

    /// The longest source name, in UTF-8 bytes: 1024; `SampleError.sourceNameTooLong`.
    package static let maximumSourceNameLength = 1024

    /// The widest interval a sample can have when every part is within its limit: the span, the
    /// resolution and twice the uncertainty.
    static var maximumWidth: Int64 {
        maximumSpan.nanosecondsClamped + maximumResolution.nanosecondsClamped
            + 2 * maximumServerUncertainty.nanosecondsClamped
    }

    /// Checks a server time at the door.
    /// - Throws: `SampleError.timeOutOfRange` outside ``serverTimes``.
    static func check(serverTime: UnixTime) throws(SampleError) {
        guard serverTimes.contains(serverTime) else { throw SampleError(.timeOutOfRange) }
    }

    /// Checks a monotonic instant at the door.
    /// - Throws: `SampleError.timeOutOfRange` outside ``monotonicInstants``.
    static func check(monotonic: MonotonicInstant) throws(SampleError) {
        guard monotonicInstants.contains(monotonic.nanoseconds) else { throw SampleError(.timeOutOfRange) }
    }

    /// Checks a server's claimed uncertainty and returns it in nanoseconds.
    /// - Throws: `SampleError.negativeUncertainty` or `SampleError.uncertaintyOutOfRange`.
    static func check(uncertainty: Duration) throws(SampleError) -> Int64 {
        guard uncertainty >= .zero else { throw SampleError(.negativeUncertainty) }
        guard uncertainty <= maximumServerUncertainty else { throw SampleError(.uncertaintyOutOfRange) }
        return uncertainty.nanosecondsClamped
    }

    /// Checks a timestamp resolution and returns it in nanoseconds.
    /// - Throws: `SampleError.negativeResolution` or `SampleError.resolutionOutOfRange`.
    static func check(resolution: Duration) throws(SampleError) -> Int64 {
        guard resolution >= .zero else { throw SampleError(.negativeResolution) }
        guard resolution <= maximumResolution else { throw SampleError(.resolutionOutOfRange) }
        return resolution.nanosecondsClamped
    }

    /// Checks the local send and receive instants of an exchange and returns its span t4 − t1.
    /// - Throws: `SampleError.timeOutOfRange`, `SampleError.replyBeforeRequest` or
    ///   `SampleError.spanTooLong`.
    static func span(from sent: MonotonicInstant, to received: MonotonicInstant) throws(SampleError) -> Int64 {
        try check(monotonic: sent)
        try check(monotonic: received)
        guard received >= sent else { throw SampleError(.replyBeforeRequest) }
        // Both instants are inside `monotonicInstants`: the difference cannot overflow.
        let span = received.nanoseconds - sent.nanoseconds
        guard span <= maximumSpan.nanosecondsClamped else { throw SampleError(.spanTooLong) }
        return span
    }
}

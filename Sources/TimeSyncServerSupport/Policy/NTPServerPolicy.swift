import TimeSyncWire

/// How an NTP server describes its clock in replies.
public struct NTPServerPolicy: Sendable, Hashable {
    /// Stratum advertised (1–15). Default 1 with `NTPReferenceID.local`.
    public var stratum: UInt8
    /// Reference identifier advertised.
    public var referenceID: NTPReferenceID
    /// Precision exponent advertised: the clock's resolution is 2^precision s. Default −20 (≈ 1 µs).
    public var precision: Int8
    /// Root delay advertised.
    public var rootDelay: Duration
    /// Root dispersion advertised.
    public var rootDispersion: Duration
    /// Leap indicator advertised.
    public var leap: NTPLeapIndicator

    /// Creates a policy.
    public init(
        stratum: UInt8 = 1, referenceID: NTPReferenceID = .local, precision: Int8 = -20,
        rootDelay: Duration = .zero, rootDispersion: Duration = .zero, leap: NTPLeapIndicator = .noWarning
    ) {
        self.stratum = stratum
        self.referenceID = referenceID
        self.precision = precision
        self.rootDelay = rootDelay
        self.rootDispersion = rootDispersion
        self.leap = leap
    }
}

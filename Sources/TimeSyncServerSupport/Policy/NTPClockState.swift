import TimeSync
import TimeSyncWire

/// The host's clock discipline as the kernel's NTP interface reports it (RFC 1589; Linux `adjtimex`,
/// BSD and macOS `ntp_adjtime`): whether a synchronization daemon keeps the clock in step, how far off
/// it may be, and any leap second armed for the end of the UTC day.
///
/// The sans-IO half of a truthful NTP server: ``init(status:state:maximumErrorMicroseconds:estimatedErrorMicroseconds:)``
/// checks the kernel's raw fields at the door, ``serverPolicy(synchronized:localStratum:)`` turns the
/// state into what replies advertise. Reading the kernel is the transport's job (`KernelClock` in
/// `TimeSyncNTP`).
public struct NTPClockState: Sendable, Hashable {
    /// A leap second the kernel will apply at the end of the current UTC day.
    public enum LeapSecond: Sendable, Hashable {
        /// None armed.
        case none
        /// 23:59:60 is inserted (`STA_INS`): the last minute has 61 seconds.
        case insert
        /// 23:59:59 is skipped (`STA_DEL`): the last minute has 59 seconds.
        case delete
    }

    /// Whether a synchronization daemon (chronyd, ntpd, systemd-timesyncd, …) keeps the clock in step:
    /// `STA_UNSYNC` is clear and the kernel does not report `TIME_ERROR`.
    public var isSynchronized: Bool
    /// The kernel's bound on the clock's error (`maxerror`): the daemon sets it to its root distance
    /// and the kernel adds 500 µs for every second without an update, up to 16 s.
    public var maximumError: Duration
    /// The daemon's estimate of the clock's error (`esterror`): a statistical figure, not a bound.
    public var estimatedError: Duration
    /// The leap second armed for the end of the day, if any.
    public var leapSecond: LeapSecond

    /// Creates a state.
    /// - Parameters:
    ///   - isSynchronized: Whether a daemon keeps the clock in step.
    ///   - maximumError: The bound on the clock's error.
    ///   - estimatedError: The estimated error.
    ///   - leapSecond: The leap second armed, if any.
    public init(isSynchronized: Bool, maximumError: Duration, estimatedError: Duration, leapSecond: LeapSecond = .none) {
        self.isSynchronized = isSynchronized
        self.maximumError = maximumError
        self.estimatedError = estimatedError
        self.leapSecond = leapSecond
    }

    /// Reads the kernel's raw fields, the same on Linux and the BSDs (macOS included).
    ///
    /// Unsynchronized when `STA_UNSYNC` is set, when the call reported `TIME_ERROR` (it does for
    /// `STA_UNSYNC`, `STA_CLOCKERR` and lost PPS signals) or failed (`-1`), and when both `STA_INS`
    /// and `STA_DEL` are set (a contradiction no daemon writes on purpose: ntpd writes it to mean
    /// "unsynchronized"). A negative error is not believed: it reads as the kernel's 16 s limit.
    /// - Parameters:
    ///   - status: The `status` flags of `struct timex`.
    ///   - state: What `adjtimex` / `ntp_adjtime` returned (`TIME_OK` 0 … `TIME_ERROR` 5, or −1).
    ///   - maximumErrorMicroseconds: `maxerror`, in microseconds.
    ///   - estimatedErrorMicroseconds: `esterror`, in microseconds.
    public init(status: Int32, state: Int32, maximumErrorMicroseconds: Int64, estimatedErrorMicroseconds: Int64) {
        let insert = status & Self.statusInsert != 0
        let delete = status & Self.statusDelete != 0
        isSynchronized =
            status & Self.statusUnsynchronized == 0 && state != Self.stateError && state >= 0 && !(insert && delete)
        leapSecond = insert == delete ? .none : insert ? .insert : .delete
        func checked(_ microseconds: Int64) -> Duration {
            microseconds < 0 ? Self.kernelErrorLimit : .microseconds(microseconds)
        }
        maximumError = checked(maximumErrorMicroseconds)
        estimatedError = checked(estimatedErrorMicroseconds)
    }

    /// What a host whose kernel could not be read is taken to be: unsynchronized, with the kernel's
    /// 16 s error limit. A server cannot vouch for a clock nobody says is disciplined.
    public static let unknown = NTPClockState(
        isSynchronized: false, maximumError: kernelErrorLimit, estimatedError: kernelErrorLimit)

    /// The root dispersion advertised under a local stratum: 10 ms, ntpd's local clock driver's.
    ///
    /// The kernel's figure says nothing then (nobody updates it: it sits at 16 s), the operator
    /// vouches for the clock, and clients need a root distance they accept (chrony's `maxdistance`
    /// is 3 s, NTP's `MAXDIST` 1.5 s) — but never a perfect one.
    public static let localRootDispersion: Duration = .milliseconds(10)

    /// What an NTP server serving this host's clock advertises.
    ///
    /// - **Synchronized**: `synchronized`'s stratum, reference identifier, precision and root delay
    ///   (the kernel knows neither the upstream's stratum nor its address: the operator says them,
    ///   see `NTPServerConfiguration.policy`), the kernel's leap second, and a root dispersion of the
    ///   kernel's maximum error — the daemon's root distance grown since its last update — never less
    ///   than the estimated error or `synchronized`'s own root dispersion.
    /// - **Unsynchronized, no local stratum**: the truth, which no client uses: leap indicator 3
    ///   (alarm), stratum 16, reference identifier 0, and the kernel's maximum error (16 s) as root
    ///   dispersion.
    /// - **Unsynchronized, `localStratum` N** (chrony's `local stratum`, ntpd's local clock driver):
    ///   the operator vouches for the clock: stratum N (clamped to 1–15), reference `LOCL`, the
    ///   kernel's leap second, no root delay, and ``localRootDispersion`` (or `synchronized`'s root
    ///   dispersion when larger).
    ///
    /// A synchronized host ignores `localStratum`: it is a fallback, as in chrony.
    /// - Parameters:
    ///   - synchronized: What to advertise while the host is synchronized.
    ///   - localStratum: The stratum to serve the clock at while it is not synchronized, or `nil` to
    ///     tell clients the truth.
    /// - Returns: The policy replies advertise.
    public func serverPolicy(synchronized: NTPServerPolicy, localStratum: UInt8?) -> NTPServerPolicy {
        var policy = synchronized
        let leap: NTPLeapIndicator =
            switch leapSecond {
            case .none: .noWarning
            case .insert: .lastMinuteHas61Seconds
            case .delete: .lastMinuteHas59Seconds
            }
        if isSynchronized {
            policy.leap = leap
            policy.rootDispersion = max(synchronized.rootDispersion, maximumError, estimatedError)
        } else if let localStratum {
            policy.stratum = min(max(localStratum, 1), 15)
            policy.referenceID = .local
            policy.leap = leap
            policy.rootDelay = .zero
            policy.rootDispersion = max(synchronized.rootDispersion, Self.localRootDispersion)
        } else {
            policy.stratum = Self.unsynchronizedStratum
            policy.referenceID = NTPReferenceID(rawValue: 0)
            policy.leap = .unsynchronized
            policy.rootDispersion = max(synchronized.rootDispersion, maximumError, estimatedError)
        }
        return policy
    }

    /// NTP's stratum of an unsynchronized server.
    public static let unsynchronizedStratum: UInt8 = 16

    // The kernel interface's constants, the same on Linux and the BSDs.
    static let statusInsert: Int32 = 0x0010
    static let statusDelete: Int32 = 0x0020
    static let statusUnsynchronized: Int32 = 0x0040
    static let stateError: Int32 = 5
    /// `NTP_PHASE_LIMIT`: the kernel's `maxerror` stops growing here and the clock is unsynchronized.
    static let kernelErrorLimit: Duration = .seconds(16)
}

/// Which time a source tells: a synchronizer keeps one.
public enum TimeReference: Sendable, Hashable, CustomStringConvertible {
    /// UTC, as NTP servers and public HTTPS servers' `Date` headers tell it.
    case utc
    /// The time of one service of yours, whatever its clock says (the reference for sales and
    /// countdowns that must agree with your backend): the name says which.
    case service(String)

    public var description: String {
        switch self {
        case .utc: "UTC"
        case .service(let name): "the time of \(name)"
        }
    }
}

/// What measures one server on demand, behind a ``TimeSource``: each transport's driver (an NTP
/// server, an HTTP endpoint with the precise header or a refined `Date`, NTS, Roughtime) implements
/// it; the synchronizer decides when to ask.
package protocol SourceDriver: Sendable {
    /// The source's name; the samples it returns carry it.
    var name: String { get }
    /// Which time the source tells.
    var reference: TimeReference { get }
    /// Whether the source's replies are signed by the server (Roughtime, NTS), so that no one on the
    /// path can forge them: such sources bound what unauthenticated ones may claim
    /// (`EstimatorConfiguration.authenticatedSources`). `false` by default.
    var isAuthenticated: Bool { get }
    /// Measures the server once (one exchange, a short series or a refinement), all of it (name
    /// resolution, key exchange, every request and wait) ending by `deadline`, on the time base's
    /// monotonic clock.
    /// - Returns: The samples, at least one.
    /// - Throws: Any error; its code says what it means for the schedule (`CodedError.pollOutcome`:
    ///   NTP's and NTS's kisses and unsynchronized replies, HTTP's `429` and `503`); any other error
    ///   is a failure (back off and retry).
    func measure(until deadline: Deadline) async throws -> [OffsetSample]
}

extension SourceDriver {
    /// Unauthenticated.
    package var isAuthenticated: Bool { false }

}

/// How far a server's clock may move off a steady rate while its time daemon slews it: at most
/// ``rate`` per unit of elapsed time, and never more than ``limit`` in all.
///
/// Bounds that assume a steady server rate (as NTP's do) miss while a server corrects its clock: a
/// server slewed at 500 ppm moves 8 ms off its line in 16 s, and no sample can show it before it does.
/// Bounds widened by this allowance hold through such a correction. The limit keeps the price
/// bounded: a time daemon slews only corrections up to a limit (ntpd: 128 ms) and steps larger ones,
/// which the estimators treat as steps.
package struct SlewAllowance: Sendable, Hashable, Codable {
    /// The largest slew rate, dimensionless (at most `EstimatorConfiguration.driftLimit`).
    package var rate: Double
    /// The largest total correction a slew makes, in nanoseconds (at most ``maximumLimit``).
    package var limit: Int64

    /// No allowance: a steady server.
    package static let none = SlewAllowance(rate: 0, limit: 0)

    /// The cap on ``limit``: one second. A server that corrects more than this by slewing it runs
    /// far from true time for minutes: treat its corrections as steps.
    package static let maximumLimit: Int64 = 1_000_000_000

    /// Creates an allowance; a rate that is not finite counts as zero, and both values are capped.
    package init(rate: Double, limit: Int64) {
        self.rate = rate.isFinite ? min(abs(rate), EstimatorConfiguration.driftLimit) : 0
        self.limit = min(max(0, limit), Self.maximumLimit)
    }

    /// An allowance from values already checked (a published model's): no capping on the read path.
    @inline(__always)
    init(trustedRate rate: Double, limit: Int64) {
        self.rate = rate
        self.limit = limit
    }

    /// Decodes an allowance through the same caps as ``init(rate:limit:)``.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(rate: try container.decode(Double.self, forKey: .rate), limit: try container.decode(Int64.self, forKey: .limit))
    }

    /// How far the server may have moved off its steady line over `elapsed` nanoseconds (either sign).
    /// - Complexity: O(1), no allocation.
    @inlinable
    package func widening(over elapsed: Int64) -> Int64 {
        guard limit > 0 else { return 0 }
        return min(limit, Int64(clamping: (rate * Double(elapsed.magnitude)).rounded(.up)))
    }
}

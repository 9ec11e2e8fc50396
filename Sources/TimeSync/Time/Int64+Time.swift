extension Int64 {
    /// Division rounding toward negative infinity.
    @usableFromInline
    package func flooredDivision(by divisor: Int64) -> Int64 {
        let q = self / divisor
        return (self % divisor != 0 && ((self < 0) != (divisor < 0))) ? q - 1 : q
    }

    /// Remainder of ``flooredDivision(by:)``, always in `0..<divisor` for a positive divisor.
    @usableFromInline
    package func flooredModulo(_ divisor: Int64) -> Int64 {
        // From the truncated remainder: `self - flooredDivision(by:) * divisor` overflows near `.min`.
        let remainder = self % divisor
        return remainder != 0 && ((remainder < 0) != (divisor < 0)) ? remainder + divisor : remainder
    }

    @usableFromInline
    package func saturatingAdd(_ other: Int64) -> Int64 {
        let (r, o) = addingReportingOverflow(other)
        return o ? (other > 0 ? .max : .min) : r
    }

    @usableFromInline
    package func saturatingSubtract(_ other: Int64) -> Int64 {
        let (r, o) = subtractingReportingOverflow(other)
        return o ? (other < 0 ? .max : .min) : r
    }

    @usableFromInline
    package func saturatingMultiply(_ other: Int64) -> Int64 {
        let (r, o) = multipliedReportingOverflow(by: other)
        return o ? ((self < 0) == (other < 0) ? .max : .min) : r
    }

    /// Converts a floating-point nanosecond count to the nearest integer, saturating at the ends of
    /// the range.
    @usableFromInline
    package init(clamping value: Double) {
        if value.isNaN { self = 0 } else if value >= 9.2e18 { self = .max } else if value <= -9.2e18 { self = .min } else { self = Int64(value.rounded()) }
    }

    /// A rate as a fixed-point number, rate × 2⁶², for a rate within ±1 % (the drift cap of
    /// `EstimatorConfiguration`); `nil` beyond, or not finite.
    @inlinable @inline(__always)
    package static func fixedPointRate(_ rate: Double) -> Int64? {
        rate.magnitude <= .driftLimit ? Int64(rate * 0x1p62) : nil
    }

    /// The drift term of an offset model, rate × elapsed nanoseconds, from a fixed-point rate (floored):
    /// the one computation `OffsetModel` and ``ServerClock/now`` share, so that `now` and `reading()`
    /// agree to the nanosecond. Integer multiplication keeps the dependency chain every clock read
    /// waits on short (the clock read itself serializes): floating point measured 4 ns slower a read.
    /// |rate| ≤ 1 % keeps the 128-bit product below 2¹¹⁹, so the result fits with room to spare.
    @inlinable @inline(__always)
    package static func driftTerm(fixedPointRate rate: Int64, elapsed: Int64) -> Int64 {
        let (high, low) = rate.multipliedFullWidth(by: elapsed)
        return (high &<< 2) | Int64(bitPattern: low &>> 62)
    }

    /// rate × elapsed nanoseconds, saturating: through the fixed-point rate within the drift cap (as
    /// `now` computes it), in floating point beyond it.
    @inlinable
    package static func driftTerm(rate: Double, elapsed: Int64) -> Int64 {
        if let fixed = fixedPointRate(rate) { return driftTerm(fixedPointRate: fixed, elapsed: elapsed) }
        return Int64(clamping: rate * Double(elapsed))
    }
}

extension Duration {
    /// The duration in whole nanoseconds, saturating at the ends of `Int64`.
    @inlinable
    package var nanosecondsClamped: Int64 {
        let (seconds, attoseconds) = components
        let (ns, o1) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if o1 { return seconds > 0 ? .max : .min }
        return ns.saturatingAdd(attoseconds / 1_000_000_000)
    }

    /// The duration in seconds as a floating-point value.
    @inlinable
    package var secondsValue: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// A duration from a floating-point number of seconds (nanosecond precision).
    @inlinable
    package static func seconds(double value: Double) -> Duration {
        .nanoseconds(Int64(clamping: value * 1e9))
    }
}

extension Double {
    /// The largest drift or wander a configuration may set, 1 %: `EstimatorConfiguration.driftLimit`.
    @usableFromInline
    static let driftLimit = 0.01
}

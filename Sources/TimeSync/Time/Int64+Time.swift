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

    /// Converts a floating-point nanosecond count, saturating at the ends of the range.
    @usableFromInline
    package init(clamping value: Double) {
        if value.isNaN { self = 0 } else if value >= 9.2e18 { self = .max } else if value <= -9.2e18 { self = .min } else { self = Int64(rounding: value) }
    }

    /// Rounds to the nearest integer, halves away from zero, for a value well inside `Int64`'s range:
    /// the one rounding of every floating-point term of TimeSync's time arithmetic, so that `now` and
    /// `reading()` agree to the nanosecond. Adding ±½ and truncating compiles to a few instructions,
    /// where `Double.rounded()` calls the C library.
    @inlinable @inline(__always)
    package init(rounding value: Double) {
        self = Int64(value < 0 ? value - 0.5 : value + 0.5)
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

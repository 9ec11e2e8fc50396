/// A small, fast, seeded random number generator (SplitMix64): the same seed gives the same stream on
/// every platform, so simulations and tests are reproducible.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator from a seed.
    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform value in [0, 1).
    public mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// An exponentially distributed value with the given mean.
    public mutating func nextExponential(mean: Double) -> Double {
        -mean * log1p(-nextUnit())
    }

    /// `true` with probability `p`.
    public mutating func nextBool(probability p: Double) -> Bool {
        nextUnit() < p
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

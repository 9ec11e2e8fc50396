import TimeSync

/// A small, fast, seeded random number generator (SplitMix64): the same seed gives the same stream on
/// every platform, so simulations and tests are reproducible.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var mixer: SplitMix64

    /// Creates a generator from a seed.
    public init(seed: UInt64) {
        mixer = SplitMix64(seed: seed)
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        mixer.next()
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

import TimeSync
import TimeSyncTesting

/// The delay of one direction of a network path: a fixed base, exponential jitter, and rare large
/// spikes (queueing, radio wake-ups, retransmissions).
package struct DelayModel: Sendable, Hashable, Codable {
    /// The propagation and serialization delay every packet pays, in seconds.
    package var base: Double
    /// The mean of the exponential queueing jitter, in seconds.
    package var jitterMean: Double
    /// The probability that a packet is delayed by a spike.
    package var spikeProbability: Double
    /// The mean of a spike's extra delay (exponential), in seconds.
    package var spikeMean: Double

    /// Creates a delay model.
    package init(base: Double, jitterMean: Double, spikeProbability: Double = 0, spikeMean: Double = 0) {
        self.base = base
        self.jitterMean = jitterMean
        self.spikeProbability = spikeProbability
        self.spikeMean = spikeMean
    }

    /// Draws one delay in seconds.
    package func sample(_ generator: inout SeededGenerator) -> Double {
        var delay = base + generator.nextExponential(mean: jitterMean)
        if spikeProbability > 0, generator.nextBool(probability: spikeProbability) {
            delay += generator.nextExponential(mean: spikeMean)
        }
        return delay
    }
}

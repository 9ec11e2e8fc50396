import TimeSync
import TimeSyncTesting

/// A simulated time server.
package struct SimulatedServer: Sendable, Hashable, Codable {
    /// How the server tells its time.
    package enum Scheme: String, Sendable, Hashable, Codable {
        /// Receive and transmit stamps: NTP, NTS, or an HTTP server's `TimeSync-Time` header.
        case exchange
        /// The one-second `Date` header of any HTTP server.
        case date
    }

    /// The server's name (the sample's source).
    package var name: String
    /// How far the server's clock is from the truth, in seconds (a falseticker lies by seconds).
    package var clockError: Double
    /// Steps of the server's clock: at `at` seconds into the run its clock jumps by `by` seconds.
    package var steps: [ClockStep]
    /// Slews of the server's clock: a time daemon correcting it runs it fast or slow for a while.
    package var slews: [ClockSlew]
    /// The server's processing time between receive and transmit, in seconds.
    package var processing: Double
    /// How its answers carry the time (default ``Scheme/exchange``).
    package var scheme: Scheme
    /// Requests per poll: one measurement's exchanges, 50 ms apart (default 1; an HTTP source sends
    /// a few over one connection). The samples of a poll reach the estimators as one measurement.
    package var requestsPerPoll: Int
    /// Brief periods when its answers are wrong (a glitch): `by` seconds off for `duration` seconds
    /// from `at`. They change what it answers, not its clock: the truth does not follow them.
    package var glitches: [ClockGlitch]
    /// From this moment on its answers carry the time it had then (one stored response replayed);
    /// `nil` for a server that never does. Its clock, the truth, runs on.
    package var frozenFrom: Double?

    /// Creates a server.
    package init(
        name: String, clockError: Double = 0, steps: [ClockStep] = [], slews: [ClockSlew] = [], processing: Double = 50e-6,
        scheme: Scheme = .exchange, requestsPerPoll: Int = 1, glitches: [ClockGlitch] = [], frozenFrom: Double? = nil
    ) {
        self.name = name
        self.clockError = clockError
        self.steps = steps
        self.slews = slews
        self.processing = processing
        self.scheme = scheme
        self.requestsPerPoll = max(1, requestsPerPoll)
        self.glitches = glitches
        self.frozenFrom = frozenFrom
    }

    /// Decodes a server; the fields after ``processing`` may be left out (their defaults).
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            name: try container.decode(String.self, forKey: .name),
            clockError: try container.decodeIfPresent(Double.self, forKey: .clockError) ?? 0,
            steps: try container.decodeIfPresent([ClockStep].self, forKey: .steps) ?? [],
            slews: try container.decodeIfPresent([ClockSlew].self, forKey: .slews) ?? [],
            processing: try container.decodeIfPresent(Double.self, forKey: .processing) ?? 50e-6,
            scheme: try container.decodeIfPresent(Scheme.self, forKey: .scheme) ?? .exchange,
            requestsPerPoll: try container.decodeIfPresent(Int.self, forKey: .requestsPerPoll) ?? 1,
            glitches: try container.decodeIfPresent([ClockGlitch].self, forKey: .glitches) ?? [],
            frozenFrom: try container.decodeIfPresent(Double.self, forKey: .frozenFrom))
    }

    /// The server clock's error at `t` seconds into the run.
    func error(at t: Double) -> Double {
        clockError + steps.filter { $0.at <= t }.map(\.by).reduce(0, +)
            + slews.map { $0.rate * min(max(t - $0.at, 0), $0.duration) }.reduce(0, +)
    }

    /// The error of what it answers at `t`: its clock's, a glitch's, or a replayed answer's.
    func answerError(at t: Double) -> Double {
        if let frozenFrom, t >= frozenFrom { return error(at: frozenFrom) - (t - frozenFrom) }
        let glitch = glitches.filter { t >= $0.at && t < $0.at + $0.duration }.map(\.by).reduce(0, +)
        return error(at: t) + glitch
    }
}

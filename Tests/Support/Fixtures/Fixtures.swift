import Foundation
import Testing
import TimeSync
import TimeSyncTesting

/// Builders for test samples.
package enum Fixture {
    package static let second: Int64 = 1_000_000_000
    package static let millisecond: Int64 = 1_000_000

    /// An exchange with a server whose clock reads `mono + offset`: the request leaves at `t1`, takes
    /// `forward` ns to arrive, the server spends `processing` ns, the reply takes `backward` ns.
    package static func exchange(
        _ source: String = "server", offset: Int64, at t1: MonotonicInstant,
        forward: Int64 = 10 * millisecond, backward: Int64 = 10 * millisecond, processing: Int64 = 0
    ) throws -> OffsetSample {
        let t2 = t1.nanoseconds + forward + offset
        let t4 = MonotonicInstant(nanoseconds: t1.nanoseconds + forward + processing + backward)
        return try OffsetSample.exchange(
            source: source, requestSent: t1, serverReceive: UnixTime(nanoseconds: t2),
            serverTransmit: UnixTime(nanoseconds: t2 + processing), responseReceived: t4)
    }

    /// The calibration an estimator reached; records an issue and throws for any other outcome.
    package static func calibration(_ outcome: EstimatorOutcome) throws -> Calibration {
        guard case .calibrated(let calibration) = outcome else {
            Issue.record("expected a calibration, got \(outcome)")
            throw CancellationError()
        }
        return calibration
    }

    /// A monotonic instant `seconds` after a base instant.
    package static func at(_ seconds: Double, after base: MonotonicInstant = MonotonicInstant(nanoseconds: 1_000 * second)) -> MonotonicInstant {
        MonotonicInstant(nanoseconds: base.nanoseconds + Int64(seconds * 1e9))
    }

    /// θ for a server ahead of the manual time base's wall clock by `seconds`, at the base's start.
    package static func offset(serverAheadOfWall seconds: Double, base: ManualTimeBase) -> Int64 {
        base.wallNow().nanoseconds - base.monotonicNow().nanoseconds + Int64(seconds * 1e9)
    }
}

/// The in-memory store of TimeSyncTesting, by its short name.
package typealias MemoryStore = MemoryCalibrationStore

/// The clock's warnings.
package final class WarningLog: Sendable {
    package init() {}

    private let messages = Locked<[String]>([])

    package func record(_ message: String) { messages.withLock { $0.append(message) } }
    package var all: [String] { messages.withLock { $0 } }
}

/// Reads a hex string (whitespace ignored) as bytes.
package func hexBytes(_ text: String) -> [UInt8] {
    let digits = Array(text.filter { !$0.isWhitespace })
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
}

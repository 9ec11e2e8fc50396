import TimeSync

/// A calibration key held in memory: for tests of code that persists a `ServerClock`, and for
/// tools that seal stores themselves. Never use a fixed key in an app: anyone who knows it can forge a
/// store.
public struct FixedCalibrationKey: CalibrationKeyProvider {
    /// The key's bytes.
    public let bytes: [UInt8]

    /// A key of the given bytes (at least 32 for a clock to accept it).
    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// 32 bytes derived from a seed: the same seed gives the same key.
    public init(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        bytes = (0..<32).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
    }

    public func key() throws -> [UInt8] { bytes }
}

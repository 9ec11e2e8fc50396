import Foundation
import Synchronization
import TimeSync
import TimeSyncTesting

/// A calibration store's bytes restored into a clock, as at every launch.
///
/// Input: a calibration's JSON (`PersistedCalibration`; the seeds are what a calibrated clock saved on
/// a ``ManualTimeBase`` with its default boot session, so they restore). An input that starts with `{`
/// is sealed with the clock's key first (its boot session `"manual-boot-1"` replaced by that session's
/// keyed tag, as a clock stores it), so that the checks behind the tag are what is fuzzed; any
/// other loses its first byte and is restored as it is (the tag check itself). The clock is then read in every way and
/// calibrated with one ordinary sample; when the store restored, what the clock then saved is
/// restored again.
/// - Readings keep their bounds around the estimate, and `now` agrees with `reading()`.
/// - A corrupt or foreign store is ignored, never trusted and never a trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStoreRestore(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzInput(data, size).bytes
    // JSON (`{…`) is sealed as the clock would have; anything else loses its first byte and is
    // restored as it is.
    let store: MemoryCalibrationStore
    if bytes.first == UInt8(ascii: "{"), let sealed = try? PersistedCalibration.seal(content: sealable(bytes), key: key.bytes) {
        store = MemoryCalibrationStore(sealed)
    } else {
        store = MemoryCalibrationStore(Data(bytes.dropFirst()))
    }
    let timeBase = ManualTimeBase()
    // Writes on the calibrating thread: nothing in flight between inputs, when LeakSanitizer checks.
    let synchronous = ServerClock.Configuration(persistence: PersistencePolicy(writesInBackground: false))
    let clock = ServerClock(timeBase: timeBase, configuration: synchronous, store: store, keyProvider: key)
    let restored = clock.calibration != nil
    readEverything(clock)

    let t1 = timeBase.monotonicNow()
    timeBase.advance(by: .milliseconds(20))
    let t4 = timeBase.monotonicNow()
    let serverReceive = timeBase.wallNow().advanced(by: .milliseconds(-5))
    if let sample = try? OffsetSample.exchange(
        source: "ntp.example", requestSent: t1, serverReceive: serverReceive,
        serverTransmit: serverReceive.advanced(by: .microseconds(50)), responseReceived: t4)
    {
        clock.calibrate(with: sample)
        try? clock.flush()
    } else {
        check(false, "an ordinary sample is rejected")
    }
    readEverything(clock)

    // What a restored clock saved restores again (skipped for stores that did not restore: the
    // round trip of a fresh calibration is the same every time, and halves the executions).
    if restored {
        let reopened = ServerClock(timeBase: timeBase, configuration: synchronous, store: store, keyProvider: key)
        readEverything(reopened)
    }
    return 0
}

/// The install's key in this target.
private let key = FixedCalibrationKey(seed: 1)

private func readEverything(_ clock: ServerClock) {
    checkReadings(of: clock)
    let reading = clock.reading()
    let wall = clock.timeBase.wallNow()
    for time in [reading.serverTime, wall, UnixTime(nanoseconds: .max), UnixTime(nanoseconds: .min), UnixTime(nanoseconds: 0)] {
        _ = clock.position(in: time..<time.advanced(by: .seconds(3600)))
        _ = clock.deviceTime(forServerTime: time)
        _ = clock.serverTime(forDeviceTime: time)
    }
    _ = clock.reading(at: MonotonicInstant(nanoseconds: .max))
    _ = clock.reading(at: MonotonicInstant(nanoseconds: .min))
    _ = clock.calibration
}

/// A ``CalibrationStore`` in memory: what the fuzzer hands in, then what the clock saves.
final class MemoryCalibrationStore: CalibrationStore {
    private let data: Mutex<Data?>

    init(_ data: Data) {
        self.data = Mutex(data)
    }

    func load() throws -> Data? { data.withLock { $0 } }
    func save(_ data: Data) throws { self.data.withLock { $0 = data } }
    func remove() throws { data.withLock { $0 = nil } }
}

/// The JSON as a clock would have sealed it: the time base's boot session identifier written as its
/// keyed tag, so that inputs from the same boot reach the checks behind it.
private func sealable(_ bytes: [UInt8]) -> Data {
    let text = String(decoding: bytes, as: UTF8.self)
    let tag = PersistedCalibration.bootSessionTag("manual-boot-1", key: key.bytes)
    return Data(text.replacingOccurrences(of: "\"manual-boot-1\"", with: "\"\(tag)\"").utf8)
}

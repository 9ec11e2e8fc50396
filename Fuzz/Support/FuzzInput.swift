import TimeSync

/// A fuzzer's input read front to back as typed values, like LLVM's `FuzzedDataProvider`.
///
/// Reads past the end return zero, so every input, however short, is a complete program: the fuzzer
/// never wastes executions on inputs a target would reject for their length.
struct FuzzInput {
    let bytes: [UInt8]
    private(set) var index = 0

    /// Copies the bytes libFuzzer hands to `LLVMFuzzerTestOneInput`.
    init(_ data: UnsafePointer<UInt8>?, _ count: Int) {
        if let data, count > 0 {
            bytes = Array(UnsafeBufferPointer(start: data, count: count))
        } else {
            bytes = []
        }
    }

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { index >= bytes.count }

    /// Everything not read yet (and consumes it).
    mutating func rest() -> [UInt8] {
        defer { index = bytes.count }
        return index < bytes.count ? Array(bytes[index...]) : []
    }

    mutating func byte() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func bool() -> Bool { byte() & 1 == 1 }

    /// Eight bytes, little-endian.
    mutating func uint64() -> UInt64 {
        var value: UInt64 = 0
        for shift in stride(from: 0, to: 64, by: 8) { value |= UInt64(byte()) << UInt64(shift) }
        return value
    }

    mutating func int64() -> Int64 { Int64(bitPattern: uint64()) }

    /// A signed 32-bit value (four bytes).
    mutating func int32() -> Int32 {
        var value: UInt32 = 0
        for shift in stride(from: 0, to: 32, by: 8) { value |= UInt32(byte()) << UInt32(shift) }
        return Int32(bitPattern: value)
    }

    /// One of `options`, chosen by one byte.
    mutating func pick<T>(_ options: [T]) -> T {
        options[Int(byte()) % options.count]
    }

    /// A nanosecond count that is usually near `base` and sometimes at an edge of `Int64`: one tag
    /// byte chooses between a small step from `base` (nanoseconds, milliseconds or seconds), an edge
    /// value, and eight raw bytes. Edges and raw values are where arithmetic overflows.
    mutating func nanoseconds(near base: Int64) -> Int64 {
        switch byte() % 8 {
        case 0, 1: return base &+ Int64(int32())
        case 2: return base &+ Int64(int32()) &* 1_000_000
        case 3: return base &+ Int64(int32()) &* 1_000_000_000
        case 4: return pick(Self.edges)
        case 5: return base &+ pick(Self.edges)
        default: return int64()
        }
    }

    /// A duration in nanoseconds, as ``nanoseconds(near:)`` around zero.
    mutating func duration() -> Duration { .nanoseconds(nanoseconds(near: 0)) }

    mutating func monotonic(near base: MonotonicInstant) -> MonotonicInstant {
        MonotonicInstant(nanoseconds: nanoseconds(near: base.nanoseconds))
    }

    mutating func unixTime(near base: UnixTime) -> UnixTime {
        UnixTime(nanoseconds: nanoseconds(near: base.nanoseconds))
    }

    static let edges: [Int64] = [
        .min, .min + 1, .max, .max - 1, 0, -1, 1, 1 << 62, -(1 << 62), 1 << 53, -(1 << 53),
        1 << 32, -(1 << 32), 3_600_000_000_000, -3_600_000_000_000, 1_000_000_000, -1_000_000_000,
        // NTP era 1 starts 2036-02-07T06:28:16Z; 1900-01-01 starts era 0.
        2_085_978_496_000_000_000, -2_208_988_800_000_000_000,
    ]
}

/// Stops the fuzzer with a message when an invariant fails: libFuzzer records the input as a crash.
func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String, file: StaticString = #file, line: UInt = #line) {
    if !condition() { fatalError("invariant violated: \(message())", file: file, line: line) }
}

/// Reading invariants every clock must keep, whatever it was fed: bounds around the estimate, and
/// the allocation-free `now` agreeing with `reading()` (1 ns of rounding apart).
func checkReadings(of clock: ServerClock) {
    let reading = clock.reading()
    if reading.status != .unsynchronized {
        check(reading.earliest <= reading.serverTime && reading.serverTime <= reading.latest, "reading outside its bounds: \(reading)")
    }
    let now = clock.now
    let difference = now.nanoseconds.subtractingReportingOverflow(reading.serverTime.nanoseconds)
    check(!difference.overflow && abs(difference.partialValue) <= 1, "now \(now.nanoseconds) ns vs reading \(reading.serverTime.nanoseconds) ns")
    let server = reading.serverTime
    _ = clock.position(in: server.advanced(by: .seconds(-1))..<server.advanced(by: .seconds(1)))
    _ = clock.deviceTime(forServerTime: server)
    _ = clock.serverTime(forDeviceTime: clock.timeBase.wallNow())
    _ = reading.error
    _ = reading.date
}

/// One sample of one source calibrates an estimator, and the calibration is no narrower than it.
func checkOneSampleCalibrates(_ sample: OffsetSample) {
    var estimator = IntersectionEstimator()
    guard case .calibrated(let calibration) = estimator.add(sample) else {
        check(false, "one sample of one source must calibrate")
        return
    }
    check(
        calibration.offset.lower <= sample.offset.lower && sample.offset.upper <= calibration.offset.upper,
        "calibration \(calibration.offset) narrower than its only sample \(sample.offset)")
}

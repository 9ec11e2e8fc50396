import Foundation
import TimeSync

/// Prints one update per calibration, serialized.
final class UpdatePrinter: Sendable {
    let json: Bool
    /// Seconds, for the device clock check.
    let tolerance: Double
    /// The moment each update says has certainly passed, or not.
    let deadline: UnixTime?
    private let lock = Locked(())

    init(json: Bool, tolerance: Double = WatchOptions.defaults.tolerance, deadline: UnixTime? = nil) {
        self.json = json
        self.tolerance = tolerance
        self.deadline = deadline
    }

    struct Update: Encodable {
        var time: String
        var status: String
        var offset: Double?
        var error: Double?
        var restored: Bool?
        /// The floor kept across a reboot (status floorOnly): server time is no earlier.
        var floor: String?
        var deviceClock: DeviceClock
        var deadline: Deadline?
        var sources: [Source]
        var diagnostics: WatchDiagnostics? = nil
    }

    /// The device clock check: `within`, `ahead`, `behind` or `unknown`, by how many seconds and
    /// within what error (none when only a floor is known: behind by at least `by`).
    struct DeviceClock: Encodable {
        var check: String
        var tolerance: Double
        var by: Double?
        var error: Double?
    }

    /// Whether the moment given with --deadline has certainly passed.
    struct Deadline: Encodable {
        var time: String
        var certainlyPassed: Bool
    }

    struct Source: Encodable {
        var source: String
        var state: String
        var offset: Double?
        var kissCode: String?
    }

    /// A failed poll: a JSON line, or a line on stderr.
    struct Failure: Encodable {
        var time: String
        var event: String
        var source: String
        var error: String
    }

    func failure(source: String, kind: String, detail: String) {
        let time = "\(SystemTimeBase().wallNow())"
        lock.withLock { _ in
            if json {
                let line = (try? compactJSON(Failure(time: time, event: kind, source: source, error: detail))) ?? "{}"
                FileHandle.standardOutput.write(Data((line + "\n").utf8))
            } else {
                FileHandle.standardError.write(Data("timesync watch: \(source): \(detail)\n".utf8))
            }
        }
    }

    static func statusName(_ status: SynchronizationStatus) -> String {
        switch status {
        case .synchronized: "synchronized"
        case .provisional: "provisional"
        case .unsynchronized: "unsynchronized"
        case .noMajority: "noMajority"
        case .floorOnly: "floorOnly"
        }
    }

    func print(_ synchronizer: TimeSynchronizer) {
        let clock = synchronizer.clock
        let reading = clock.reading()
        let status = reading.status
        let restored = reading.isRestored
        let offset = clock.calibration.map { WallClockOffset($0, pair: clock.timeBase.wallClockPair()) }
        let diagnostics = synchronizer.diagnostics()
        let statuses = diagnostics.sources
        let sources = statuses.map {
            Source(source: $0.source, state: $0.state.rawValue, offset: $0.wallClockOffset?.secondsValue, kissCode: $0.refusal)
        }
        let pair = clock.timeBase.wallClockPair()
        let calibrated = status != .unsynchronized && status != .floorOnly
        let update = Update(
            time: "\(clock.timeBase.wallNow())", status: Self.statusName(status),
            offset: calibrated ? offset?.estimate.secondsValue : nil,
            error: calibrated ? offset?.error.secondsValue : nil, restored: restored ? true : nil,
            floor: status == .floorOnly ? "\(reading.earliest)" : nil,
            deviceClock: Self.deviceClock(
                clock.reading(at: pair.monotonic).deviceClockCheck(deviceTime: pair.wall, tolerance: .seconds(double: tolerance)),
                tolerance: tolerance),
            deadline: deadline.map { Deadline(time: "\($0)", certainlyPassed: reading.hasCertainlyPassed($0)) },
            sources: sources)
        let line: String
        if json {
            line = (try? compactJSON(update.adding(diagnostics, now: clock.timeBase.monotonicNow()))) ?? "{}"
        } else {
            line = Self.text(update, statuses: statuses, now: clock.timeBase.monotonicNow())
        }
        lock.withLock { _ in
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
        }
    }

    /// An update as a line, every value named:
    /// `2026-11-25T19:35:05.466Z  synchronized  offset -0.000036 s ± 0.010259 s  sources: a:123 selected +0.000062 s (2 s ago); b:123 unreachable, last +0.000101 s 5 min ago (stale)`.
    /// A source's offset is its own latest sample's (server − this machine's wall clock); it is
    /// marked stale when the source is not answering now (unreachable, kissed, unsynchronized,
    /// conflicting, standing by).
    static func deviceClock(_ check: DeviceClockCheck, tolerance: Double) -> DeviceClock {
        switch check {
        case .withinTolerance(let offset, let error):
            DeviceClock(check: "within", tolerance: tolerance, by: offset.secondsValue, error: error.secondsValue)
        case .ahead(let by, let error): DeviceClock(check: "ahead", tolerance: tolerance, by: by.secondsValue, error: error.secondsValue)
        case .behind(let by, let error): DeviceClock(check: "behind", tolerance: tolerance, by: by.secondsValue, error: error?.secondsValue)
        case .unknown: DeviceClock(check: "unknown", tolerance: tolerance)
        }
    }

    /// The device clock check in words: `device clock within 1 s`, `device clock ahead 90.000 s ±
    /// 0.010 s`, `device clock behind ≥ 86400.000 s`, `device clock unknown`.
    static func text(_ device: DeviceClock) -> String {
        switch (device.check, device.by, device.error) {
        case ("within", _, _): "device clock within \(Self.seconds(device.tolerance))"
        case (let check, let by?, let error?): String(format: "device clock \(check) %.3f s ± %.3f s", by, error)
        case (let check, let by?, nil): String(format: "device clock \(check) ≥ %.3f s", by)
        default: "device clock \(device.check)"
        }
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }

    static func text(_ update: Update, statuses: [SourceDiagnostics], now: MonotonicInstant) -> String {
        var head = update.floor.map { "floor ≥ \($0)" }
            ?? update.offset.map { String(format: "offset %+.6f s ± %.6f s", $0, update.error ?? 0) } ?? "offset -"
        head += "  " + text(update.deviceClock)
        if let deadline = update.deadline {
            head += "  \(deadline.time) \(deadline.certainlyPassed ? "certainly passed" : "not certainly passed")"
        }
        let list = statuses.map { source in
            var text = "\(source.source) \(source.state.rawValue)" + (source.refusal.map { " \($0)" } ?? "")
            guard let offset = source.wallClockOffset else { return text }
            let age = source.lastSampleTime.map { $0.duration(to: now) }.map { " \(Self.age($0)) ago" } ?? ""
            if staleStates.contains(source.state) {
                text += String(format: ", last %+.6f s", offset.secondsValue) + age + " (stale)"
            } else {
                text += String(format: " %+.6f s", offset.secondsValue) + (age.isEmpty ? "" : " (\(age.dropFirst()))")
            }
            return text
        }.joined(separator: "; ")
        return "\(update.time)  \(update.status)\(update.restored == true ? " (restored)" : "")  \(head)  sources: \(list)"
    }

    /// The states of a source not answering now: its last offset is stale.
    static let staleStates: Set<SourceDiagnostics.State> = [.unreachable, .kissed, .unsynchronized, .conflictingReplies, .standingBy]

    /// A duration in whole seconds, minutes or hours.
    static func age(_ duration: Duration) -> String {
        let seconds = max(0, duration.secondsValue)
        if seconds < 120 { return "\(Int(seconds.rounded(.down))) s" }
        if seconds < 7200 { return "\(Int((seconds / 60).rounded(.down))) min" }
        return "\(Int((seconds / 3600).rounded(.down))) h"
    }
}

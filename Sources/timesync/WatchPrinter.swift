import Foundation
import TimeSync

/// Prints one update per calibration, serialized.
final class UpdatePrinter: Sendable {
    let json: Bool
    private let lock = Locked(())

    init(json: Bool) { self.json = json }

    struct Update: Encodable {
        var time: String
        var status: String
        var offset: Double?
        var error: Double?
        var restored: Bool?
        var sources: [Source]
        var diagnostics: WatchDiagnostics? = nil
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
        let statuses = synchronizer.sourceStatuses()
        let sources = statuses.map {
            Source(source: $0.source, state: $0.state.rawValue, offset: $0.wallClockOffset?.secondsValue, kissCode: $0.kissCode)
        }
        let update = Update(
            time: "\(clock.timeBase.wallNow())", status: Self.statusName(status),
            offset: status == .unsynchronized ? nil : offset?.estimate.secondsValue,
            error: status == .unsynchronized ? nil : offset?.error.secondsValue, restored: restored ? true : nil,
            sources: sources)
        let line: String
        if json {
            line = (try? compactJSON(update.adding(synchronizer.diagnostics(), now: clock.timeBase.monotonicNow()))) ?? "{}"
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
    static func text(_ update: Update, statuses: [TimeSourceStatus], now: MonotonicInstant) -> String {
        let head = update.offset.map { String(format: "offset %+.6f s ± %.6f s", $0, update.error ?? 0) } ?? "offset -"
        let list = statuses.map { source in
            var text = "\(source.source) \(source.state.rawValue)" + (source.kissCode.map { " \($0)" } ?? "")
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
    static let staleStates: Set<TimeSourceStatus.State> = [.unreachable, .kissed, .unsynchronized, .conflictingReplies, .standingBy]

    /// A duration in whole seconds, minutes or hours.
    static func age(_ duration: Duration) -> String {
        let seconds = max(0, duration.secondsValue)
        if seconds < 120 { return "\(Int(seconds.rounded(.down))) s" }
        if seconds < 7200 { return "\(Int((seconds / 60).rounded(.down))) min" }
        return "\(Int((seconds / 3600).rounded(.down))) h"
    }
}

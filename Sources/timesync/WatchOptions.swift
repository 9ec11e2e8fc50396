import Foundation
import TimeSync
import TimeSyncNTP

/// The settings of `timesync watch`, checked the same way whichever way the command was built.
struct WatchOptions: Sendable {
    var sources: [String]
    var caFile: [String] = []
    var duration: Double?
    var json = false
    var store: String?
    /// Milliseconds.
    var targetError: Double = 250
    var timeout: Double = 2
    var interval: Double?
    /// Seconds: how far the device clock may be from server time before the check says so.
    var tolerance: Double = 1
    /// A moment to report on in every update: has it certainly passed?
    var deadline: String?

    /// ``deadline`` as a time, to the nanosecond: Unix seconds, or ISO 8601 in UTC
    /// (`2026-11-26T08:00:00.123456789Z`).
    var deadlineTime: UnixTime? {
        deadline.flatMap { UnixTime(parsing: $0) }
    }

    /// The defaults, for help texts.
    static let defaults = WatchOptions(sources: [])

    /// What is wrong with the settings, as a usage error says it; `nil` when they are good.
    var problem: String? {
        guard !sources.isEmpty else { return "no source: give at least one ntp://, nts://, roughtime:// or http(s):// URL" }
        if let duration, !(duration.isFinite && duration > 0 && duration <= 31_536_000) {
            return "--duration \(duration): give seconds, more than 0 and at most 31536000 (a year)"
        }
        guard targetError.isFinite, targetError > 0, targetError <= 3_600_000 else {
            return "--target-error \(targetError): give milliseconds, more than 0 and at most 3600000"
        }
        guard timeout.isFinite, timeout > 0, timeout <= 60 else { return "--timeout \(timeout): give seconds, more than 0 and at most 60" }
        if let interval, !(interval.isFinite && interval >= 0.1 && interval <= 86_400) {
            return "--interval \(interval): give seconds, from 0.1 to 86400"
        }
        guard tolerance.isFinite, tolerance >= 0, tolerance <= 31_536_000 else {
            return "--tolerance \(tolerance): give seconds, from 0 to 31536000 (a year)"
        }
        if let deadline, deadlineTime == nil {
            return "--deadline '\(deadline)': give Unix seconds or an ISO 8601 time in UTC, such as 2026-11-26T08:00:00Z"
        }
        for source in sources {
            if case .failure(let problem) = TimeServerURL.parse(source, command: "watch") { return problem.message }
        }
        for file in caFile where !FileManager.default.isReadableFile(atPath: file) {
            return "--ca-file '\(file)': no readable file there; give a PEM file of certificate authorities"
        }
        if let store {
            // Only a store (or nothing, or an empty file) is ever replaced.
            do {
                try FileCalibrationStore(url: URL(fileURLWithPath: store)).validate()
            } catch {
                return "--store: \(error)"
            }
        }
        return nil
    }
}

extension WatchOptions {
    /// Each flag's help, the same in both builds of the command.
    enum Help {
        static let sources = "The sources: ntp://host[:port], nts://host[:port], roughtime://host:port?key=BASE64 or http(s):// URLs."
        static let caFile = "NTS: a PEM file of certificate authorities to trust for key-exchange servers, beside the system's (repeatable)."
        static let duration = "Stop after this many seconds (default: run until SIGINT or SIGTERM)."
        static let json =
            "Print JSON Lines; a usage error is a JSON object {\"error\": …, \"errorType\": \"invalidArgument\", \"help\": …} (exit status 64)."
        static let store = "Keep the calibration in this file: restored at start (an offline start reports it), saved as it changes."
        static let targetError =
            "The error to keep, in milliseconds: polling speeds up when the error would pass it before the next poll, and slows down well below it."
        static let timeout = "Each measurement's deadline, in seconds (more than 0, at most 60)."
        static let interval = "Also print a line every this many seconds, between calibrations (default: only on a calibration)."
        static let tolerance =
            "How far, in seconds, this machine's clock may be from server time before each line says it is ahead or behind."
        static let deadline =
            "A moment (Unix seconds, or ISO 8601 in UTC) each line says has certainly passed, or not yet certainly."
    }
}

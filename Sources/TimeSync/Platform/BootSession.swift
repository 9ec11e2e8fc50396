import Foundation

/// The identity of the current boot session, read once per process: the system's boot session
/// identifier, or, where the system refuses it (a sandbox that denies the `sysctl`, a container
/// without `/proc/sys`), the boot time, marked with ``bootTimePrefix``.
enum BootSession {
    static let currentID: String? = {
        guard let id = identify(sessionID: systemSessionID(), bootTime: systemBootTime()) else { return nil }
        #if os(Linux)
        // A time namespace moves the monotonic and boot-time clocks' epochs while the boot ID stays
        // the host's: its offsets are part of the session (none outside a namespace, or on a kernel
        // without time namespaces, where the file is missing).
        guard let offsets = try? String(contentsOfFile: "/proc/self/timens_offsets", encoding: .utf8) else { return id }
        return timeNamespaceSession(bootID: id, offsets: offsets)
        #else
        return id
        #endif
    }()

    /// What starts an identifier made from the boot time.
    static let bootTimePrefix = "boottime:"

    /// The session's identifier: the system's, else one made from the boot time (whole seconds of
    /// the wall clock), else `nil`. The boot time moves when the wall clock is set, so after such a
    /// change a saved calibration reads as another boot's (only its floor is kept): never the other
    /// way round, since two boots do not share a boot time.
    static func identify(sessionID: String?, bootTime: Int64?) -> String? {
        if let sessionID, !sessionID.isEmpty { return sessionID }
        guard let bootTime, bootTime > 0 else { return nil }
        return bootTimePrefix + String(bootTime)
    }

    /// Whether an identifier was made from the boot time.
    static func isBootTime(_ id: String) -> Bool { id.hasPrefix(bootTimePrefix) }

    static func systemSessionID() -> String? {
        #if os(Linux)
        guard let text = try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8) else {
            return nil
        }
        let id = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return id.isEmpty ? nil : id
        #elseif canImport(Darwin)
        var size = 0
        guard sysctlbyname("kern.bootsessionuuid", nil, &size, nil, 0) == 0, size > 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: size)
        guard sysctlbyname("kern.bootsessionuuid", &buffer, &size, nil, 0) == 0 else { return nil }
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
        #else
        return nil
        #endif
    }

    /// The boot time in whole seconds since 1970: `btime` in `/proc/stat` on Linux, `kern.boottime`
    /// on Apple platforms.
    static func systemBootTime() -> Int64? {
        #if os(Linux)
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8) else { return nil }
        return bootTime(procStat: text)
        #elseif canImport(Darwin)
        var time = timeval()
        var size = MemoryLayout<timeval>.size
        guard sysctlbyname("kern.boottime", &time, &size, nil, 0) == 0, size == MemoryLayout<timeval>.size else { return nil }
        return Int64(time.tv_sec)
        #else
        return nil
        #endif
    }

    /// The `btime` line of `/proc/stat`: seconds since 1970, or `nil` without one in range.
    static func bootTime(procStat: String) -> Int64? {
        for line in procStat.split(separator: "\n") where line.hasPrefix("btime ") {
            guard let seconds = Int64(line.dropFirst(6).trimmingCharacters(in: .whitespaces)), seconds > 0 else { return nil }
            return seconds
        }
        return nil
    }
}

extension BootSession {
    /// The boot session of a process in a time namespace: the boot ID, with the namespace's clock
    /// offsets (`/proc/self/timens_offsets`: a line per clock, its name and seconds and nanoseconds)
    /// appended when any is not zero, so the host's ID is unchanged.
    static func timeNamespaceSession(bootID: String, offsets: String) -> String {
        let moved = offsets.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: ":") }
            .filter { line in !line.isEmpty && line.split(separator: ":").dropFirst().contains { $0 != "0" } }
        return moved.isEmpty ? bootID : "\(bootID);timens=\(moved.sorted().joined(separator: ","))"
    }
}

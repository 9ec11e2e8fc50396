import Foundation

/// The identity of the current boot session, read once per process.
enum BootSession {
    static let currentID: String? = {
        #if os(Linux)
        guard let text = try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8) else {
            return nil
        }
        let id = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !id.isEmpty else { return nil }
        // A time namespace moves the monotonic and boot-time clocks' epochs while the boot ID stays
        // the host's: its offsets are part of the session (none outside a namespace, or on a kernel
        // without time namespaces, where the file is missing).
        guard let offsets = try? String(contentsOfFile: "/proc/self/timens_offsets", encoding: .utf8) else { return id }
        return timeNamespaceSession(bootID: id, offsets: offsets)
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
    }()
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

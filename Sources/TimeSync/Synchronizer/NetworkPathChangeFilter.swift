/// Which network path updates call for a resynchronization: a change to a usable path other than the
/// one the samples went over.
///
/// A path monitor reports the current path as soon as it starts, and may repeat an unchanged path;
/// neither is a change. A path that is not usable (offline) is remembered but does not resynchronize:
/// the next usable one does.
package struct NetworkPathChangeFilter: Sendable, Hashable {
    private var last: String?

    /// A filter that has seen no path yet.
    package init() {}

    /// Takes one update from the monitor.
    /// - Parameters:
    ///   - satisfied: Whether the path can carry traffic.
    ///   - path: What identifies the path (its status and interfaces).
    /// - Returns: Whether to resynchronize.
    package mutating func update(satisfied: Bool, path: String) -> Bool {
        let identity = "\(satisfied ? "usable" : "unusable") \(path)"
        defer { last = identity }
        guard let last else { return false }
        return satisfied && identity != last
    }
}

#if NTS
import TimeSync
import TimeSyncWire
import TimeSyncNTP

/// What a one-shot query of an NTS server found: the authenticated replies combined as an NTP query's
/// are, the NTP server the key exchange named, and what the query dropped on the way.
package struct NTSQueryResult: Sendable {
    /// The combined measurement, relative to the device's wall clock. Its `server` is the key-exchange
    /// server asked; its `address` is the NTP server's.
    package var measurement: NTPQueryResult
    /// The NTP server that answered (the one the key exchange named), with its port.
    package var ntpServer: IPEndpoint
    /// How long the key exchange took, when the query made one (a client with usable keys makes none).
    package var keyExchangeDuration: Duration?
    /// Datagrams dropped while the query ran (altered, forged, unauthenticated, stray, NAKs), by
    /// reason, as ``NTSClientStatistics/dropped`` counts them.
    package var dropped: [String: Int]

    /// All datagrams dropped while the query ran.
    package var droppedTotal: Int { dropped.values.reduce(0, +) }
}

extension NTSClientStatistics {
    /// The datagrams dropped since `earlier`, by reason (reasons with none left out).
    func dropped(since earlier: NTSClientStatistics) -> [String: Int] {
        dropped.reduce(into: [:]) { result, entry in
            let count = entry.value - (earlier.dropped[entry.key] ?? 0)
            if count > 0 { result[entry.key] = count }
        }
    }
}
#endif

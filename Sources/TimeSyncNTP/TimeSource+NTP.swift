import TimeSync
import TimeSyncWire

extension TimeSource {
    /// An NTP server. Each measurement resolves the name (so a server that moved is followed) and
    /// makes one exchange within the synchronizer's deadline, listening on briefly for a second,
    /// conflicting reply (a spoofer racing the server). Kiss-o'-Death codes reach the schedule:
    /// `RATE` slows the polling of this server to the interval it asks for, `DENY` and `RSTR` stop it.
    /// - Parameters:
    ///   - host: The server's name or IP literal (IPv6 without brackets).
    ///   - port: Its UDP port (123).
    ///   - addressPolicy: Which addresses the name may resolve to (default: public ones only).
    @available(watchOS, unavailable, message: "watchOS apps cannot use BSD sockets (Apple TN3135): use .https(_:)")
    public static func ntp(_ host: String, port: Int = NTPServerAddress.defaultPort, addressPolicy: AddressPolicy = .publicOnly) -> TimeSource {
        ntp(NTPServerAddress(host: host, port: port), addressPolicy: addressPolicy)
    }

    /// An NTP server given as an address (from ``NTPServerAddress/init(validating:)`` or a hosts file),
    /// as ``ntp(_:port:addressPolicy:)``.
    @available(watchOS, unavailable, message: "watchOS apps cannot use BSD sockets (Apple TN3135): use .https(_:)")
    public static func ntp(_ server: NTPServerAddress, addressPolicy: AddressPolicy = .publicOnly) -> TimeSource {
        TimeSource { NTPTimeSource(server, timeBase: $0, addressPolicy: addressPolicy) }
    }
}

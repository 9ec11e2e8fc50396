import TimeSync

/// What a custom scheme read from a response: the server's time and how exactly it is known.
public struct HTTPServerTimeReading: Sendable, Hashable {
    /// The server's time as it answered (as late as it could read it).
    public var serverTime: UnixTime
    /// The timestamp's resolution: the server's time lies in `serverTime ..< serverTime + resolution`.
    /// Zero for an exact time.
    public var resolution: Duration
    /// How long the server spent on the request before `serverTime`, when it says so: the sample is
    /// then an exchange (t2 = `serverTime` − this, t3 = `serverTime`), far tighter than the round trip.
    public var processingTime: Duration?

    /// Creates a reading.
    public init(serverTime: UnixTime, resolution: Duration = .zero, processingTime: Duration? = nil) {
        self.serverTime = serverTime
        self.resolution = resolution
        self.processingTime = processingTime
    }
}

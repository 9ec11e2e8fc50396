/// How long an NTP exchange keeps listening after the first valid reply, to see a second, different
/// reply to the same request (a spoofer on the path racing the server): the round trip, and at least
/// `minimum`; never past the exchange's deadline.
public struct NTPConflictWindow: Sendable, Hashable {
    /// The shortest wait after the first reply.
    public var minimum: Duration
    /// Round trips to wait after the first reply (the wait is the larger of this and `minimum`).
    public var roundTrips: Int

    /// Creates a window.
    public init(minimum: Duration, roundTrips: Int = 1) {
        self.minimum = max(.zero, minimum)
        self.roundTrips = max(0, roundTrips)
    }

    /// max(round trip, 20 ms): what a one-shot query waits.
    public static let query = NTPConflictWindow(minimum: .milliseconds(20))
    /// max(2 round trips, 250 ms): what a synchronizer's source waits before its sample reaches the
    /// clock, so a late conflicting reply is seen before the sample is used rather than after.
    public static let synchronizer = NTPConflictWindow(minimum: .milliseconds(250), roundTrips: 2)
    /// No wait: the first valid reply is returned at once (a late conflict goes unseen).
    public static let none = NTPConflictWindow(minimum: .zero, roundTrips: 0)

    /// The wait after a reply whose exchange took `roundTrip`.
    package func wait(roundTrip: Duration) -> Duration {
        max(minimum, roundTrip * roundTrips)
    }
}

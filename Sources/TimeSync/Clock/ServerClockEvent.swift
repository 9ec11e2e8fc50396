import Foundation

/// What happens to a ``ServerClock``, as an `AsyncSequence` from `ServerClock.events(bufferingNewest:)`.
package enum ServerClockEvent: Sendable, Hashable {
    /// A sample produced a calibration; the reading is taken at that moment.
    case calibrated(ClockReading)
    /// A recalibration moved the estimate by more than `ServerClock.Configuration.offsetChangeThreshold`.
    case offsetChanged(by: Duration)
    /// The device's wall clock moved against the monotonic clock (the user or the system changed it).
    case wallClockChanged(by: Duration)
    /// A source stopped answering while others went on, and was dropped.
    case sourceLost(String)
    /// Sources disagree and no majority agrees on the time.
    case noMajority(sources: Int, largestAgreeing: Int)
    /// A sample was rejected; the clock is unchanged.
    case sampleRejected(source: String, reason: String)
    /// A stored calibration was restored at start. The clock's initializer restores before anyone can
    /// subscribe, so a subscriber sees this only from a later restore; check ``ServerClock/isSynchronized``
    /// after creating the clock instead.
    case restored(sources: [String])
    /// A stored calibration was not used (another boot session, unreadable or corrupt). Sent while the
    /// clock is created, before anyone can subscribe: the initializer's `onWarning` receives it.
    case storeIgnored(reason: String)
    /// Writing the store failed; the clock is unchanged and the next write tries again.
    case storeFailed(reason: String)
    /// The synchronized time contradicted the floor kept across reboots (its `latest` lay below the
    /// floor): the floor came from a source or a store that was wrong, and was lowered by `by` to what
    /// the synchronized calibration vouches for. `reason` says which sources and by how much.
    case floorLowered(by: Duration, reason: String)
    /// The clock's status changed (for example `provisional` → `synchronized` as more sources agree).
    case statusChanged(from: SynchronizationStatus, to: SynchronizationStatus)
}

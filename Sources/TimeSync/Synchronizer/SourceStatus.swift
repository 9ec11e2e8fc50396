/// What the synchronizer's core makes of one source's polling and the clock's view of it: the part
/// of ``SourceDiagnostics`` that is judged rather than counted.
package struct SourceStatus: Sendable, Hashable {
    package typealias State = SourceDiagnostics.State

    /// The source's name.
    package var source: String
    /// Where it stands.
    package var state: State
    /// Its own last measurement of server time − this device's wall clock (the middle of its
    /// sample's bounds), when it answered.
    package var wallClockOffset: Duration?
    /// For a `kissed` source: the Kiss-o'-Death code (`RATE`, `DENY`, `RSTR`, …).
    package var kissCode: String?
    /// When its last sample was taken (its reply's arrival, on the monotonic clock): how old
    /// ``wallClockOffset`` is.
    package var lastSampleTime: MonotonicInstant? = nil
}

import HTTPTypes
import TimeSync

/// A sample taken from one HTTP response.
public struct HTTPTimeObservation: Sendable, Hashable {
    /// The sample: bounds on θ = server time − monotonic time.
    public var sample: OffsetSample
    /// Which header it came from.
    public var scheme: HTTPTimeScheme.Kind
}

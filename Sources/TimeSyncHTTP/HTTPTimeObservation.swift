import HTTPTypes
import TimeSync

/// A sample taken from one HTTP response.
package struct HTTPTimeObservation: Sendable, Hashable {
    /// The sample: bounds on θ = server time − monotonic time.
    package var sample: OffsetSample
    /// Which header it came from.
    package var scheme: HTTPTimeScheme.Kind
}

/// Why an observation could not become a sample. Bad input changes nothing.
package struct SampleError: CodedError {
    /// The kinds of rejected observation.
    package enum Code: Sendable, Hashable {
        /// The interval's lower bound exceeds its upper bound.
        case emptyInterval
        /// The reply arrived (t4) before the request left (t1).
        case replyBeforeRequest
        /// The server's transmit time (t3) is before its receive time (t2).
        case serverTimestampsReversed
        /// The round trip minus the server's processing time is negative: inconsistent timestamps.
        case negativeDelay
        /// A timestamp resolution below zero.
        case negativeResolution
        /// A server-reported uncertainty below zero.
        case negativeUncertainty
        /// A sample without a source name.
        case emptySourceName
        /// A remaining duration below zero.
        case negativeDuration
        /// A server time outside `SampleLimits.serverTimes`, or a monotonic instant outside
        /// `SampleLimits.monotonicInstants`.
        case timeOutOfRange
        /// An exchange (or a server's processing time) longer than `SampleLimits.maximumSpan`.
        case spanTooLong
        /// A server-reported uncertainty above `SampleLimits.maximumServerUncertainty`.
        case uncertaintyOutOfRange
        /// A timestamp resolution above `SampleLimits.maximumResolution`.
        case resolutionOutOfRange
        /// A source name longer than `SampleLimits.maximumSourceNameLength` bytes.
        case sourceNameTooLong
        /// Bounds wider than a sample within every limit can have.
        case intervalTooWide
    }

    /// Which kind of failure this is.
    package let code: Code

    init(_ code: Code) { self.code = code }

    /// The interval's lower bound exceeds its upper bound.
    package static let emptyInterval = SampleError(.emptyInterval)
    /// The reply arrived (t4) before the request left (t1).
    package static let replyBeforeRequest = SampleError(.replyBeforeRequest)
    /// The server's transmit time (t3) is before its receive time (t2).
    package static let serverTimestampsReversed = SampleError(.serverTimestampsReversed)
    /// The round trip minus the server's processing time is negative: inconsistent timestamps.
    package static let negativeDelay = SampleError(.negativeDelay)
    /// A timestamp resolution below zero.
    package static let negativeResolution = SampleError(.negativeResolution)
    /// A server-reported uncertainty below zero.
    package static let negativeUncertainty = SampleError(.negativeUncertainty)
    /// A sample without a source name.
    package static let emptySourceName = SampleError(.emptySourceName)
    /// A remaining duration below zero.
    package static let negativeDuration = SampleError(.negativeDuration)
    /// A server time outside `SampleLimits.serverTimes`, or a monotonic instant outside
    /// `SampleLimits.monotonicInstants`.
    package static let timeOutOfRange = SampleError(.timeOutOfRange)
    /// An exchange (or a server's processing time) longer than `SampleLimits.maximumSpan`.
    package static let spanTooLong = SampleError(.spanTooLong)
    /// A server-reported uncertainty above `SampleLimits.maximumServerUncertainty`.
    package static let uncertaintyOutOfRange = SampleError(.uncertaintyOutOfRange)
    /// A timestamp resolution above `SampleLimits.maximumResolution`.
    package static let resolutionOutOfRange = SampleError(.resolutionOutOfRange)
    /// A source name longer than `SampleLimits.maximumSourceNameLength` bytes.
    package static let sourceNameTooLong = SampleError(.sourceNameTooLong)
    /// Bounds wider than a sample within every limit can have.
    package static let intervalTooWide = SampleError(.intervalTooWide)

    package var description: String {
        switch code {
        case .emptyInterval: "offset interval is empty (lower bound above upper bound)"
        case .replyBeforeRequest: "reply received before the request was sent"
        case .serverTimestampsReversed: "server transmit time is before its receive time"
        case .negativeDelay: "negative round-trip delay: timestamps are inconsistent"
        case .negativeResolution: "negative timestamp resolution"
        case .negativeUncertainty: "negative server uncertainty"
        case .emptySourceName: "source name is empty"
        case .negativeDuration: "negative remaining duration"
        case .timeOutOfRange: "time out of range (server times must lie in 1900–2199)"
        case .spanTooLong: "exchange took longer than \(SampleLimits.maximumSpan)"
        case .uncertaintyOutOfRange: "server uncertainty above \(SampleLimits.maximumServerUncertainty)"
        case .resolutionOutOfRange: "timestamp resolution above \(SampleLimits.maximumResolution)"
        case .sourceNameTooLong: "source name longer than \(SampleLimits.maximumSourceNameLength) bytes"
        case .intervalTooWide: "offset bounds wider than any valid sample's"
        }
    }
}

extension SampleError: TimeSyncErrorConvertible {
    package var timeSyncError: TimeSyncError { TimeSyncError(.invalidValue, description, cause: self) }
}

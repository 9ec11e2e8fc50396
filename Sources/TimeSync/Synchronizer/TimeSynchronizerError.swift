/// Why a ``TimeSynchronizer`` cannot be made.
package enum TimeSynchronizerError: CodedError, Hashable {
    /// No source.
    case noSources
    /// Two sources have the same name: their samples would be taken for one server's.
    case duplicateSource(String)
    /// The sources tell different times (UTC and your service's, or two services'): a clock follows
    /// one reference, and mixing them would make every source look like a falseticker.
    case mixedReferences([TimeReference])

    /// The error itself: each case is its own code.
    package var code: Self { self }

    package var description: String {
        switch self {
        case .noSources: "no time source"
        case .duplicateSource(let name): "two sources are named \(name)"
        case .mixedReferences(let references):
            "sources tell different times (\(references.map(\.description).joined(separator: ", "))): "
                + "a synchronizer follows one reference; use one synchronizer per reference"
        }
    }
}

extension TimeSynchronizerError: TimeSyncErrorConvertible {
    package var timeSyncError: TimeSyncError {
        let kind: TimeSyncError.Code =
            switch self {
            case .noSources: .noSources
            case .duplicateSource: .duplicateSource
            case .mixedReferences: .mixedReferences
            }
        return TimeSyncError(kind, description, cause: self)
    }
}

import Foundation

/// Why a calibration key could not be had.
package struct CalibrationKeyError: CodedError {
    /// The kinds of missing key.
    package enum Code: Sendable, Hashable {
        /// The provider cannot give the key now (a Keychain locked until the device's first unlock, a
        /// Keychain or file operation that failed); the store asks again at its next write.
        case unavailable
        /// The key file, or a directory or symbolic link on its path, is not one this process's user
        /// (or root) alone controls, or cannot be checked: a key another user could plant, read or
        /// redirect is not used.
        case untrustedFile
        /// The key is shorter than 32 bytes.
        case keyTooShort
    }

    /// Which kind of failure this is.
    package let code: Code
    /// What went wrong, for a log line.
    package var reason: String
    /// What the file system threw, when a key file or its directory could not be created; the
    /// `UntrustedPathError` naming the component, when a component of the key's path is not trusted.
    package let underlying: (any Error)?

    /// Creates an error with the code ``Code-swift.enum/unavailable``: what a
    /// ``CalibrationKeyProvider`` throws when it cannot give the key now.
    package init(_ reason: String) {
        self.init(.unavailable, reason)
    }

    init(_ code: Code, _ reason: String, underlying: (any Error)? = nil) {
        self.code = code
        self.reason = reason
        self.underlying = underlying
    }

    package var description: String { "calibration key: \(reason)" }
}

extension CalibrationKeyError: TimeSyncErrorConvertible {
    package var timeSyncError: TimeSyncError {
        let kind: TimeSyncError.Code =
            switch code {
            case .unavailable: .keyUnavailable
            case .untrustedFile: .untrustedPath
            case .keyTooShort: .keyTooShort
            }
        return TimeSyncError(kind, description, cause: self)
    }
}

/// What TimeSync throws: a ``code`` to match on, a ``message`` for people, and the error underneath
/// (``cause``), if any.
///
/// Match on the code, never on the message, which is written for people and may change. Codes are
/// values, not enum cases, so later versions can add kinds: a `switch` over a code needs a `default`.
///
/// ```swift
/// do {
///     let sync = try TimeSynchronizer(sources: sources)
///     sync.start()
/// } catch let error as TimeSyncError where error.code == .duplicateSource {
///     print(error.message)   // "two sources are named api.example.com"
/// }
/// ```
///
/// A source's failures during polling are not thrown: each source's last failure is in
/// `TimeSynchronizer.diagnostics()`, and events report them as they happen.
public struct TimeSyncError: Error, Sendable, CustomStringConvertible {
    /// A kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String

        /// A kind named `name` (the modules of the package define theirs).
        package init(_ name: String) { self.name = name }

        public var description: String { name }

        /// A value given to the library is out of range or inconsistent (a negative duration, bounds
        /// in the wrong order, a time beyond what the library represents): nothing changed.
        public static let invalidValue = Code("invalidValue")
        /// A synchronizer was given no source.
        public static let noSources = Code("noSources")
        /// Two sources of a synchronizer have the same name: their samples would be taken for one
        /// server's.
        public static let duplicateSource = Code("duplicateSource")
        /// The sources of a synchronizer tell different times (UTC and your service's): a clock
        /// follows one reference.
        public static let mixedReferences = Code("mixedReferences")
        /// Something other than a calibration store is at a store's path (a symbolic link, a
        /// directory, a file of another kind): it is neither read nor written.
        public static let notAStore = Code("notAStore")
        /// A store cannot be read or written (the message gives the system's reason).
        public static let storeUnavailable = Code("storeUnavailable")
        /// A directory, symbolic link or file on a path is not one this process's user (or root)
        /// alone controls: another user could plant, read or redirect what it holds.
        public static let untrustedPath = Code("untrustedPath")
        /// The key that seals the store cannot be had now (a Keychain locked until the first unlock,
        /// a failed file operation); the store asks again at its next write.
        public static let keyUnavailable = Code("keyUnavailable")
        /// A key shorter than 32 bytes.
        public static let keyTooShort = Code("keyTooShort")
    }

    /// Which kind of failure this is: the value to match on.
    public let code: Code
    /// What happened and what to do, for people.
    public let message: String
    /// The error that caused this one: the system's, or a layer's inside the library.
    public let cause: (any Error)?

    /// An error of kind `code`; a custom store or key provider throws these.
    public init(_ code: Code, _ message: String, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    public var description: String { message }
}

extension TimeSyncError: CodedError {
    package var underlying: (any Error)? { cause }
    /// The cause's meaning for polling: a layer's error made public keeps it.
    package var pollOutcome: PollOutcome { (cause as? any CodedError)?.pollOutcome ?? .failure }
    package var refusalCode: String? { (cause as? any CodedError)?.refusalCode }
}

/// An error of the library's layers that has a public form.
package protocol TimeSyncErrorConvertible: Error {
    /// The error as an app sees it.
    var timeSyncError: TimeSyncError { get }
}

extension TimeSyncError {
    /// `error` as an app sees it: its public form when it has one, itself when it is one, else a
    /// `code` error whose message is the error's own and whose cause is the error.
    package static func from(_ error: any Error, otherwise code: Code) -> TimeSyncError {
        if let error = error as? TimeSyncError { return error }
        if let error = error as? any TimeSyncErrorConvertible { return error.timeSyncError }
        return TimeSyncError(code, ErrorMessage.of(error), cause: error)
    }
}

extension TimeSyncError {
    /// Runs `body`, throwing what it throws in its public form (``from(_:otherwise:)``).
    package static func converting<T>(otherwise code: Code, _ body: () throws -> T) throws(TimeSyncError) -> T {
        do {
            return try body()
        } catch {
            throw from(error, otherwise: code)
        }
    }
}

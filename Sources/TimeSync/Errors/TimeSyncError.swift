/// The shape of every error TimeSync throws: a code to match on, a message for people (its
/// `description`), and the error underneath, if any.
///
/// Each error type names one layer (an NTP reply, an HTTP response, a Roughtime message, a key
/// file) and lists what can go wrong there in its `Code` enum. Match on the code, never on the
/// message, which is written for people and may change:
///
/// ```swift
/// do {
///     let result = try await NTPClient().query(host: "time.example.com")
///     print(result.wallClockOffset)
/// } catch let error as NTPReplyError where error.code == .kissOfDeath {
///     print("the server asks to be asked less often, or not at all:", error)
/// } catch let error as NTPClientError {
///     switch error.code {
///     case .timeout: retryLater()
///     case .dnsFailure, .noAddresses: askForAnotherServer()
///     default: print(error)
///     }
/// }
/// ```
///
/// The static constants of an error type (`NTPReplyError.kissOfDeath`, `HTTPTimeError.retryLater`)
/// carry the code of that kind of failure, so `error.code == NTPReplyError.kissOfDeath.code` and
/// `error.code == .kissOfDeath` say the same.
///
/// Errors are not `Equatable`: two errors of one kind may differ in what they carry (the server, the
/// detail, the error underneath), and no comparison of them could say which of those matter. Compare
/// their codes instead.
///
/// The message, `description`, says what happened in the domain's words and includes the error
/// underneath when there is one; ``underlying`` gives that error itself (an `NTPReplyError` for
/// malformed bytes carries the `NTPPacketError` that says why they did not decode).
public protocol TimeSyncError: Error, Sendable, CustomStringConvertible {
    /// The kinds of failure this error type reports. Later versions may add kinds: give a `switch`
    /// over a code a `default` case.
    associatedtype Code: Hashable & Sendable

    /// Which kind of failure this is: the value to match on.
    var code: Code { get }

    /// The error that caused this one, when there is one: a parser's complaint inside a rejected
    /// reply, the NTP error inside an NTS one. `nil` by default.
    var underlying: (any Error)? { get }
}

extension TimeSyncError {
    public var underlying: (any Error)? { nil }
}

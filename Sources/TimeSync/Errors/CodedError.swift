/// The shape of the errors the library's layers throw inside: a code to match on, a message for
/// people (its `description`), and the error underneath, if any. What reaches an app is a
/// ``TimeSyncError``, made from one of these at the public boundary.
package protocol CodedError: Error, Sendable, CustomStringConvertible {
    /// The kinds of failure this error type reports. Later versions may add kinds: give a `switch`
    /// over a code a `default` case.
    associatedtype Code: Hashable & Sendable

    /// Which kind of failure this is: the value to match on.
    var code: Code { get }

    /// The error that caused this one, when there is one: a parser's complaint inside a rejected
    /// reply, the NTP error inside an NTS one. `nil` by default.
    var underlying: (any Error)? { get }

    /// What a failure of this kind means for polling the source that gave it: read from the code,
    /// with what the server asked for where it said (a `RATE` kiss's interval, a `Retry-After`).
    /// By default a failure: back off and retry. The one place each protocol's refusals are read
    /// for the schedule (`PollOutcome.init(failure:)`).
    var pollOutcome: PollOutcome { get }

    /// The protocol's word for the refusal, when the server sent one (`RATE`, `DENY`, `HTTP 429`):
    /// shown in a source's diagnostics. `nil` by default.
    var refusalCode: String? { get }
}

extension CodedError {
    package var underlying: (any Error)? { nil }
    package var pollOutcome: PollOutcome { .failure }
    package var refusalCode: String? { nil }
}

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
}

extension CodedError {
    package var underlying: (any Error)? { nil }
}

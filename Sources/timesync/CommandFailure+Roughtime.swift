import TimeSync
import TimeSyncWire
import TimeSyncRoughtime

/// What Roughtime failures mean for the user of the CLI.
extension CommandFailure {
    static func roughtime(_ error: RoughtimeError, at: String) -> CommandFailure {
        if let usage = roughtimeURL(error) { return usage }
        switch error.code {
        case .timeout:
            return CommandFailure(
                kind: .timeout, message: "\(error)",
                help: "Check the host, the port and the key (a server drops a request naming another key); raise --timeout.")
        case .badKey:
            return .invalidArgument(
                "\(error)", help: "A public key is 32 bytes in base64 or hex; a key file holds the base64 seed 'timesync roughtime keygen' writes.")
        case .invalidReport:
            return .invalidArgument("\(error)", help: "Give a report as 'timesync roughtime query --report FILE' writes it.")
        case .requestTooShort:
            return .invalidArgument("\(error)", help: "Requests are at least 1024 bytes: the report holds one that is not, so it proves nothing.")
        case .contradictorySignatures:
            return CommandFailure(kind: .noMajority, message: "\(error)", help: roughtimeContradictionHelp)
        case .timeOutOfRange, .truncated, .badFraming, .malformedMessage, .unsortedTags, .missingTag, .badTagLength, .wrongType:
            return CommandFailure(
                kind: .invalidResponse, message: "the reply of\(at) is not usable: \(error)",
                help: "Check that the port serves Roughtime; if it does, use another server and tell this one's operator.")
        default:
            return CommandFailure(
                kind: .unauthenticated, message: "\(error)",
                help: "The reply did not verify under the key given: check the key; if it persists, the server or the path lies.")
        }
    }

    /// The usage error of a malformed `roughtime://` URL, with what to give instead; `nil` for any
    /// other error (a key that is not one included).
    static func roughtimeURL(_ error: RoughtimeError) -> CommandFailure? {
        switch error.code {
        case .invalidURL:
            .invalidArgument(error.detail, help: "e.g. roughtime://roughtime.example:2002?key=AW5uAoTSTDfG5NfY1bTh08GUnOqlRb+HVhbJ3ODJvsE=")
        case .missingKey: .invalidArgument(error.detail, help: "Pin the server's long-term public key: ?key=BASE64.")
        case .unknownVersion: .invalidArgument(error.detail, help: "Versions: 1, 0x8000000c, 0x8000000b, 0x80000008, google.")
        default: nil
        }
    }

    /// What to do when a Roughtime server's signed replies contradict each other.
    static let roughtimeContradictionHelp =
        "The server's clock jumped or it lies: query it with other servers ('timesync roughtime query A B') to prove which."
}

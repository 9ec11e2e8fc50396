import Foundation
import TimeSync
import TimeSyncSockets
import TimeSyncWire
import TimeSyncServerSupport
import TimeSyncHTTP
import TimeSyncNTP
#if CLI
import ArgumentParser
import TimeSyncAsyncHTTPClient
import TimeSyncNTS
#endif
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A failed `timesync` command as its user sees it: a stable kind, what happened, and what to do.
///
/// Text mode prints `Error: <message>` and `Help: <help>` on stderr; `--json` prints
/// `{"error": <message>, "errorType": <kind>, "help": <help>, …}` on stdout. Usage errors exit 64,
/// every other failure 1.
struct CommandFailure: Error, CustomStringConvertible {
    /// The stable names of `--json`'s `errorType`, listed in the README's CLI section: scripts may
    /// match on them.
    enum Kind: String, CaseIterable, Sendable {
        /// A flag or argument is malformed or out of range (exit status 64).
        case invalidArgument
        /// `serve`: another process already serves the port.
        case addressInUse
        /// `serve`: the port needs privileges (below 1024).
        case permissionDenied
        /// `serve`: the address is not one of this host's.
        case addressNotAvailable
        /// The host name does not resolve.
        case dnsFailure
        /// The host name resolves only to loopback, private or link-local addresses (NTP).
        case localAddresses
        /// Nothing listens on the server's port (TCP refused, or ICMP port unreachable for NTP).
        case refused
        /// No route to the server's host, or the network is down.
        case unreachable
        /// No (complete) reply within `--timeout`.
        case timeout
        /// The TLS handshake failed (`https://` to a plain-HTTP port, an untrusted certificate).
        case tlsFailure
        /// The server closed the connection before a complete response.
        case connectionClosed
        /// Another failure of the network or the connection.
        case network
        /// The NTP server sent a Kiss-o'-Death (`RATE`, `DENY`, `RSTR`, …).
        case kissOfDeath
        /// The HTTP server answered `429` or `503`: it asks to be asked later.
        case rateLimited
        /// The NTP server says its own clock is not synchronized.
        case unsynchronized
        /// Two different replies came to one NTP request: someone on the path answered too.
        case conflictingReplies
        /// NTS: no reply came back authenticated (altered, forged or stripped replies, or an NTS NAK).
        case unauthenticated
        /// NTS: the key-exchange server refused, or its answer cannot be used.
        case keyExchangeFailed
        /// The samples contradict each other: no majority agrees on an offset.
        case noMajority
        /// The server answered, but without a usable time (a missing or malformed header, a cached
        /// or replayed response, a malformed NTP reply).
        case invalidResponse
        /// Anything else.
        case failed
    }

    /// What kind of failure, for scripts.
    var kind: Kind
    /// What happened, in words.
    var message: String
    /// What to do about it.
    var help: String
    /// The URL a query was about, for `--json`.
    var url: String?

    var description: String { message }

    /// 64 (`EX_USAGE`) for a usage error, 1 for any other failure.
    var status: Int32 { kind == .invalidArgument ? 64 : 1 }

    /// The usage error of a flag or argument.
    static func invalidArgument(_ message: String, help: String) -> CommandFailure {
        CommandFailure(kind: .invalidArgument, message: message, help: help)
    }

    /// The JSON of a failure.
    struct JSON: Encodable {
        /// What happened, in words (the same text the human output prints).
        var error: String
        /// One of ``Kind``'s names.
        var errorType: String
        /// What to do about it.
        var help: String
        /// The URL queried, for `timesync query`.
        var url: String?
    }

    /// Prints the failure: one line of JSON on stdout, or `Error:` and `Help:` lines on stderr.
    func report(json: Bool) {
        if json {
            let object = JSON(error: message, errorType: kind.rawValue, help: help, url: url)
            print((try? compactJSON(object)) ?? #"{"errorType":"failed"}"#)
        } else {
            FileHandle.standardError.write(Data("Error: \(message)\nHelp: \(help)\n".utf8))
        }
    }
}

extension CommandFailure {
    /// The failure a library error means for the user of the CLI.
    /// - Parameters:
    ///   - error: What a library threw.
    ///   - server: The server it was about (`host:port`), for the message; `nil` when there is none.
    /// - Returns: The failure, with a message and what to do.
    static func from(_ error: any Error, server: String? = nil) -> CommandFailure {
        let at = server.map { " \($0)" } ?? ""
        switch error {
        case let failure as CommandFailure:
            return failure
        case let error as TimeSyncError:
            // The public form of a layer's error: the layer's own says more (a usage error, a server's refusal).
            if let cause = error.cause, cause is any CodedError { return from(cause, server: server) }
            return CommandFailure(
                kind: .failed, message: error.message, help: "Run with --log-level debug where the command has it, or report the message.")
        case let error as NTPClientError:
            return ntpClient(error, at: at)
        case let error as NTPReplyError:
            return ntpReply(error, at: at)
        #if CLI
        case let error as NTSKEError:
            return ntsKeyExchange(error)
        case let error as NTSReplyError:
            if let ntp = error.ntp { return ntpReply(ntp, at: at) }
            return CommandFailure(
                kind: .unauthenticated, message: "no authenticated reply from\(at): \(error)",
                help: error.code == .negativeAcknowledgment
                    ? "Query again: the next query makes a new key exchange."
                    : "Query again from another network; if it persists, someone on the path alters or forges the server's replies.")
        case let error as NTSKeyFileError:
            return CommandFailure(kind: .failed, message: "\(error)", help: "Check the file: its path, its permissions and its contents.")
        case let error as HTTPTransportError:
            return httpTransport(error)
        #endif
        case let error as URLError:
            return urlError(error, at: at)
        case let error as RoughtimeError:
            return roughtime(error, at: at)
        case let error as SampleError:
            return CommandFailure(
                kind: .invalidResponse, message: "the reply of\(at) cannot be a sample: \(error)",
                help: "Use another server: this one tells a time or an uncertainty no honest server tells.")
        case let error as SampleConsensusError:
            return CommandFailure(
                kind: .noMajority, message: "the samples of\(at) contradict each other: \(error)",
                help: "Query again; if it persists, the server steps its clock or someone tampers with its replies.")
        case let error as HTTPTimeError:
            return httpTime(error, at: at)
        case let error as ServerBindError:
            return bindFailure(error)
        case let error as TimeSynchronizerError:
            return .invalidArgument("\(error)", help: "Give each source once.")
        default:
            return CommandFailure(
                kind: .failed, message: "\(error)", help: "Run with --log-level debug where the command has it, or report the message.")
        }
    }
}

#if CLI
extension CommandFailure {
    /// ``status`` as ArgumentParser's exit code.
    var exitCode: ExitCode { ExitCode(status) }
}
#endif

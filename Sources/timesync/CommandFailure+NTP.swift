import Foundation
import TimeSync
import TimeSyncSockets
import TimeSyncWire
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

/// What NTP and NTS failures mean for the user of the CLI.
extension CommandFailure {
    static func ntpClient(_ error: NTPClientError, at: String) -> CommandFailure {
        switch error.code {
        case .invalidServerAddress:
            return .invalidArgument("\(error)", help: "Give ntp://HOST[:PORT], e.g. ntp://pool.ntp.org or ntp://[::1]:12300 (port 1-65535).")
        case .timeout:
            return CommandFailure(
                kind: .timeout, message: "\(error)",
                help: "Check the host and port, that a firewall lets UDP through both ways, or raise --timeout.")
        case .unreachable:
            return CommandFailure(
                kind: .refused, message: "nothing listens on\(at): its host answered that the UDP port is closed (ICMP port unreachable)",
                help: "Check the port (NTP's is 123), or start an NTP server there (timesync serve --ntp HOST:PORT).")
        case .dnsFailure, .noAddresses:
            return CommandFailure(kind: .dnsFailure, message: "\(error)", help: "Check the host name, and that this machine's DNS works.")
        case .localAddresses:
            return CommandFailure(
                kind: .localAddresses, message: "\(error)",
                help: "For a server on your own network give its IP address, or pass --allow-local-addresses.")
        default:
            return CommandFailure(kind: .unreachable, message: "\(error)", help: "Check the address and this machine's network connection.")
        }
    }

    #if CLI
    static func ntsKeyExchange(_ error: NTSKEError) -> CommandFailure {
        switch error.code {
        case .untrustedCertificate:
            return CommandFailure(
                kind: .tlsFailure, message: "\(error)",
                help: "Give the certificate authority that signed the server's certificate (--ca-file FILE), or check that the URL names the host the certificate is for.")
        case .tls, .noApplicationProtocol:
            return CommandFailure(kind: .tlsFailure, message: "\(error)", help: "Check that the port serves NTS-KE (TLS 1.3, ALPN ntske/1; 4460 by default).")
        case .connection:
            return CommandFailure(
                kind: .refused, message: "\(error)",
                help: "Check the host and the NTS-KE port (4460 by default), or start a server (timesync serve --nts-ke HOST:PORT --cert FILE --key FILE).")
        case .timeout:
            return CommandFailure(kind: .timeout, message: "\(error)", help: "Check that the server answers NTS-KE on that port, or raise --timeout.")
        default:
            return CommandFailure(
                kind: .keyExchangeFailed, message: "\(error)", help: "Use another NTS server, or tell its operator what it answered.")
        }
    }

    #endif

    static func ntpReply(_ error: NTPReplyError, at: String) -> CommandFailure {
        switch error.code {
        case .kissOfDeath:
            let code = error.kissCode.map { "\($0)" } ?? "?"
            return CommandFailure(
                kind: .kissOfDeath, message: "\(at.isEmpty ? "the server" : String(at.dropFirst())) sent a \(error)",
                help: code == "RATE"
                    ? "Query this server less often, as it asks."
                    : "This server refuses to serve this client (\(code)): use another server.")
        case .unsynchronized:
            return CommandFailure(
                kind: .unsynchronized, message: "\(error)",
                help: "Use another server: this one does not vouch for its clock (on a timesync server, --local-stratum N does).")
        case .conflictingReplies:
            return CommandFailure(
                kind: .conflictingReplies, message: "\(error)",
                help: "Query again from another network; if it persists, someone on the path answers for the server.")
        default:
            return CommandFailure(
                kind: .invalidResponse, message: "the reply of\(at) is not usable: \(error)",
                help: "Check that the port serves NTP.")
        }
    }
}

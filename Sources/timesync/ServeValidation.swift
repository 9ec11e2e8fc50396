#if CLI
import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle
import TimeSyncHummingbird
import TimeSyncNTPServer
import TimeSyncNTS
import TimeSyncRoughtimeServer
import TimeSyncServerSupport

/// `timesync serve`'s checks of its flags, and the values they give.
extension Serve {
    func validate() throws {
        guard ntp != nil || http != nil || ntsKe != nil || roughtime != nil else {
            throw ValidationError("nothing to serve: give --ntp HOST:PORT, --nts-ke HOST:PORT, --roughtime HOST:PORT, --http HOST:PORT, or several")
        }
        try validateRoughtime()
        if let ntsKe {
            _ = try Self.address(ntsKe, flag: "--nts-ke")
            guard cert != nil, key != nil else { throw ValidationError("--nts-ke needs --cert FILE and --key FILE (PEM)") }
            guard ntp != nil || ntsNtpServer != nil else {
                throw ValidationError("--nts-ke needs an NTP server for its clients: --ntp HOST:PORT here, or --nts-ntp-server HOST:PORT elsewhere")
            }
            if ntsNtpServer == nil, let ntp, parseHTTPAddress(ntp)?.port == 0 {
                throw ValidationError("--nts-ke tells clients the --ntp port: give --ntp a port other than 0")
            }
        } else {
            guard cert == nil, key == nil || roughtime != nil, ntsNtpServer == nil else {
                throw ValidationError("--cert, --key and --nts-ntp-server go with --nts-ke (or --key with --roughtime)")
            }
            if ntsKeyDir != nil, ntp == nil { throw ValidationError("--nts-key-dir without --nts-ke needs --ntp: the NTP server that answers NTS") }
        }
        for (flag, file) in [("--cert", cert), ("--key", key), ("--roughtime-key", roughtimeKey)] {
            if let file, !FileManager.default.isReadableFile(atPath: file) { throw ValidationError("\(flag) '\(file)': no readable file there") }
        }
        if let ntsKeyDir {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: ntsKeyDir, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ValidationError("--nts-key-dir '\(ntsKeyDir)': no directory there")
            }
        }
        if let ntsNtpServer {
            let address = try Self.address(ntsNtpServer, flag: "--nts-ntp-server")
            guard (1...65_535).contains(address.port) else { throw ValidationError("--nts-ntp-server '\(ntsNtpServer)': give a port from 1 to 65535") }
        }
        guard ntsKeyRotation.isFinite, (60...31_536_000).contains(ntsKeyRotation) else {
            throw ValidationError("--nts-key-rotation \(ntsKeyRotation): give 60 to 31536000 seconds")
        }
        guard ntsKeTimeout.isFinite, ntsKeTimeout >= 0.001, ntsKeTimeout <= 86_400 else {
            throw ValidationError("--nts-ke-timeout \(ntsKeTimeout): give 0.001 to 86400 seconds")
        }
        guard (1...1_000_000).contains(ntsKeMaxConnections) else {
            throw ValidationError("--nts-ke-max-connections \(ntsKeMaxConnections): give 1 to 1000000")
        }
        guard (1...1_000_000).contains(ntsKeMaxConnectionsPerAddress) else {
            throw ValidationError("--nts-ke-max-connections-per-address \(ntsKeMaxConnectionsPerAddress): give 1 to 1000000")
        }
        guard Self.parseRateLimit(ntsKeRateLimit) != nil else {
            throw ValidationError("--nts-ke-rate-limit '\(ntsKeRateLimit)': give a positive number of connections per second, or 'off'")
        }
        guard (1...10_000).contains(ntsKeRateLimitBurst) else {
            throw ValidationError("--nts-ke-rate-limit-burst \(ntsKeRateLimitBurst): give 1 to 10000 connections")
        }
        if let ntp { _ = try Self.address(ntp, flag: "--ntp") }
        if let http { _ = try Self.address(http, flag: "--http") }
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level '\(logLevel)': give trace, debug, info, notice, warning, error or critical")
        }
        guard parsedRateLimit != nil else { throw ValidationError("--rate-limit '\(rateLimit)': give a positive number of requests per second, or 'off'") }
        if let threads, !(1...256).contains(threads) { throw ValidationError("--threads \(threads): give 1 to 256") }
        guard (0...10_000).contains(ntpCoalesce) else { throw ValidationError("--ntp-coalesce \(ntpCoalesce): give 0 to 10000 microseconds") }
        guard parsedNTPIO != nil else {
            throw ValidationError("--ntp-io '\(ntpIo)': give 'batched' (Linux only) or 'swiftnio'")
        }
        if let localStratum, !(1...15).contains(localStratum) { throw ValidationError("--local-stratum \(localStratum): give 1 to 15") }
        for (name, seconds) in [("--http-header-timeout", httpHeaderTimeout), ("--http-idle-timeout", httpIdleTimeout)]
        where !(seconds.isFinite && seconds >= 0.001 && seconds <= 86_400) {
            throw ValidationError("\(name) \(seconds): give 0.001 to 86400 seconds")
        }
        if let httpMaxConnections, !(1...1_000_000).contains(httpMaxConnections) {
            throw ValidationError("--http-max-connections \(httpMaxConnections): give 1 to 1000000")
        }
        guard ClientPrefix.ipv6Lengths.contains(ipv6ClientPrefix) else {
            throw ValidationError("--ipv6-client-prefix \(ipv6ClientPrefix): give 32 to 128 bits (64, a host's usual share, by default)")
        }
        guard (1...1_000_000).contains(httpMaxConnectionsPerAddress) else {
            throw ValidationError("--http-max-connections-per-address \(httpMaxConnectionsPerAddress): give 1 to 1000000")
        }
        _ = try Self.cors(httpCorsOrigin)
    }

    /// The CORS settings of `--http-cors-origin`: `nil` for none, every origin for `*`, else the origins
    /// given, each `http` or `https`, a host and an optional port, as a browser sends it.
    /// - Throws: `ValidationError` naming the value and what is wrong.
    static func cors(_ origins: [String]) throws -> TimeSyncCORS? {
        if origins.isEmpty { return nil }
        if origins == ["*"] { return TimeSyncCORS(origins: .any) }
        for origin in origins {
            if origin == "*" { throw ValidationError("--http-cors-origin '*' allows every origin: give it alone") }
            let parts = origin.split(separator: "/", omittingEmptySubsequences: false)
            let valid = parts.count == 3 && (parts[0] == "http:" || parts[0] == "https:") && parts[1].isEmpty && !parts[2].isEmpty
                && parts[2].allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-.:[]".contains($0)) }
            guard valid else {
                throw ValidationError(
                    "--http-cors-origin '\(origin)': give an origin as a browser sends it, such as https://shop.example or http://localhost:8080 (no path, no trailing slash), or '*'")
            }
        }
        return TimeSyncCORS(origins: .only(origins))
    }

    /// The host and port of `--ntp` or `--http`.
    /// - Throws: `ValidationError` naming the flag, the value and what is wrong.
    static func address(_ value: String, flag: String) throws -> (host: String, port: Int) {
        guard let address = parseHTTPAddress(value) else {
            let port = value.lastIndex(of: ":").map { String(value[value.index(after: $0)...]) }
            let reason =
                switch port {
                case nil: "no port"
                case let port? where Int(port) == nil: "the port '\(port)' is not a number"
                case let port?: "the port \(port) is outside 0-65535"
                }
            throw ValidationError("\(flag) '\(value)': \(reason); give HOST:PORT, e.g. 127.0.0.1:12300 or [::1]:8080 (port 0 picks a free one)")
        }
        return address
    }

    /// The HTTP server's limits, from the options.
    var httpLimits: HTTPConnectionLimits {
        var limits = HTTPConnectionLimits(
            headerTimeout: .seconds(httpHeaderTimeout), idleTimeout: .seconds(httpIdleTimeout),
            maximumConnections: httpMaxConnections, maximumConnectionsPerAddress: httpMaxConnectionsPerAddress)
        limits.ipv6ClientPrefixLength = ipv6ClientPrefix
        return limits
    }

    /// The master keys NTS needs: made and rotated with --nts-ke (in --nts-key-dir when given), read
    /// from --nts-key-dir without it; `nil` when this process serves no NTS.
    func ntsKeys() throws -> NTSServerKeys? {
        guard ntsKe != nil || ntsKeyDir != nil else { return nil }
        return try NTSServerKeys(
            configuration: .init(
                directory: ntsKeyDir, role: ntsKe != nil ? .writer : .reader, rotationInterval: .seconds(double: ntsKeyRotation)))
    }

    /// `--ntp-io`; `nil` for a value that is not one (or `batched` where it does not exist).
    var parsedNTPIO: NTPServerConfiguration.DatagramIO? {
        switch ntpIo.lowercased() {
        case "swiftnio", "nio": .swiftNIO
        case "batched": NTPServerConfiguration.DatagramIO.platformDefault == .batched ? .batched : nil
        default: nil
        }
    }

    var parsedRateLimit: Double? { Self.parseRateLimit(rateLimit) }

    /// A rate limit flag's value: a positive number of requests per second, or `off` (`.infinity`);
    /// `nil` for anything else.
    static func parseRateLimit(_ text: String) -> Double? {
        if text == "off" { return .infinity }
        guard let value = Double(text), value.isFinite, value > 0 else { return nil }
        return value
    }
}
#endif

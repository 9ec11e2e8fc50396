#if CLI
import ArgumentParser
import Logging
import ServiceLifecycle
import TimeSync
import TimeSyncWire
import TimeSyncRoughtime
import TimeSyncRoughtimeServer

extension Serve {
    /// The long-term key file of `--roughtime`: `--roughtime-key`, or `--key` when no `--nts-ke` claims it.
    var roughtimeKeyFile: String? { roughtimeKey ?? (ntsKe == nil ? key : nil) }

    func validateRoughtime() throws {
        guard let roughtime else {
            guard roughtimeKey == nil, roughtimeVersions == nil else { throw ValidationError("--roughtime-key and --roughtime-versions go with --roughtime") }
            return
        }
        _ = try Self.address(roughtime, flag: "--roughtime")
        guard roughtimeKeyFile != nil else {
            throw ValidationError(
                ntsKe == nil
                    ? "--roughtime needs the long-term key: --key FILE ('timesync roughtime keygen --out FILE' makes one)"
                    : "--roughtime with --nts-ke needs its own key: --roughtime-key FILE (--key is the TLS key)")
        }
        guard (1...RoughtimeServerConfiguration.maximumBatchSize).contains(roughtimeBatch) else {
            throw ValidationError("--roughtime-batch \(roughtimeBatch): give 1 to \(RoughtimeServerConfiguration.maximumBatchSize)")
        }
        guard (3...86_400).contains(roughtimeRadius) else { throw ValidationError("--roughtime-radius \(roughtimeRadius): give 3 to 86400 seconds") }
        guard roughtimeKeyLifetime.isFinite, (60...31_536_000).contains(roughtimeKeyLifetime) else {
            throw ValidationError("--roughtime-key-lifetime \(roughtimeKeyLifetime): give 60 to 31536000 seconds")
        }
        _ = try parsedRoughtimeVersions()
        guard Self.parseRateLimit(roughtimeRateLimit) != nil else {
            throw ValidationError("--roughtime-rate-limit '\(roughtimeRateLimit)': give a positive number of requests per second, or 'off'")
        }
        guard (1...10_000).contains(roughtimeRateLimitBurst) else {
            throw ValidationError("--roughtime-rate-limit-burst \(roughtimeRateLimitBurst): give 1 to 10000 requests")
        }
    }

    /// `--roughtime-versions`, or every version the server answers.
    func parsedRoughtimeVersions() throws -> [RoughtimeVersion] {
        guard let roughtimeVersions else { return RoughtimeVersion.served }
        let versions = try roughtimeVersions.split(separator: ",").map { name in
            guard let version = RoughtimeVersion(name: String(name)), RoughtimeVersion.served.contains(version) else {
                throw ValidationError(
                    "--roughtime-versions: '\(name)' is not a version this server answers; give some of "
                        + RoughtimeVersion.served.map(\.description).joined(separator: ","))
            }
            return version
        }
        guard !versions.isEmpty else { throw ValidationError("--roughtime-versions: give at least one version") }
        return versions
    }
}

/// The service behind `timesync serve --roughtime HOST:PORT --key FILE`: a Roughtime server signing
/// with an online key delegated by the long-term key in `keyFile`. Its public key is logged at `info`
/// once listening. Each client address may send `rateLimit` requests a second (`.infinity`: no
/// limit), in bursts of `rateLimitBurst`; the rest are dropped before they are signed.
/// - Throws: ``CommandFailure`` (`invalidArgument`) for a key file that does not hold a key, or an
///   address that is not one to serve on.
func makeRoughtimeServerService(
    host: String, port: Int, keyFile: String, batchSize: Int, radius: UInt32, keyLifetime: Double, versions: [RoughtimeVersion],
    rateLimit: Double = 1, rateLimitBurst: Int = 8, ipv6ClientPrefixLength: Int = 64, logger: Logger
) throws -> some Service {
    guard !host.isEmpty, (0...65_535).contains(port) else {
        throw CommandFailure.invalidArgument(
            "--roughtime '\(HostPort.format(host: host, port: port))': not an address to serve on",
            help: "Give --roughtime HOST:PORT with a port from 0 to 65535.")
    }
    do {
        let key = try RoughtimeKeyText.privateKey(file: keyFile)
        var configuration = RoughtimeServerConfiguration(
            host: host, port: port, batchSize: batchSize, radius: radius, delegationLifetime: .seconds(double: keyLifetime), versions: versions,
            rateLimit: rateLimit, rateLimitBurst: Double(rateLimitBurst))
        configuration.ipv6ClientPrefixLength = ipv6ClientPrefixLength
        return try RoughtimeServer(
            configuration: configuration,
            longTermKey: key, logger: logger)
    } catch {
        throw CommandFailure.from(error)
    }
}
#endif

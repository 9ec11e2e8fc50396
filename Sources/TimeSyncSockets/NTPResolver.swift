#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import TimeSync
import TimeSyncWire

/// Resolves host names to their IPv4 and IPv6 addresses (A and AAAA records) with the system's
/// `getaddrinfo`, off the cooperative thread pool, within a deadline; then keeps what an
/// ``AddressPolicy`` allows, in the order it gives.
@available(watchOS, unavailable)
package enum NTPResolver {
    /// The addresses of `host` for `port` to try, in order.
    ///
    /// An IP literal (a link-local IPv6 one with its `%zone`) is used as it is, with no filtering. On
    /// Apple platforms an IPv4 literal is also passed to `getaddrinfo` without `AI_NUMERICHOST`, as
    /// Apple's guidance for IPv6-only networks asks: on a NAT64 network it answers with the synthesized
    /// IPv6 address, the only way to that server there ("Supporting IPv6 DNS64/NAT64 Networks").
    /// - Parameters:
    ///   - host: A host name or IP literal.
    ///   - port: The port.
    ///   - policy: Which addresses a name may resolve to.
    ///   - deadline: The lookup's deadline (the measurement's), on `timeBase`'s monotonic clock (time
    ///     asleep counts).
    ///   - timeBase: The clocks the deadline is kept on.
    /// - Throws: `NTPClientError` `.dnsFailure` (the resolver failed or did not answer in time),
    ///   `.noAddresses` (no IPv4 or IPv6 address), `.localAddresses` (only addresses the policy
    ///   refuses), `CancellationError`.
    package static func resolve(
        host: String, port: Int, policy: AddressPolicy, deadline: Deadline, timeBase: any TimeBase
    ) async throws -> [IPEndpoint] {
        if let literal = try lookup(host: host, port: port, numericOnly: true) {
            #if canImport(Darwin)
            // The system answers from the NAT64 prefix it has discovered; a quarter of the deadline
            // (at most a second) bounds the wait, so the exchange keeps the rest.
            if literal.allSatisfy({ $0.address.family == .v4 }),
                let synthesized = try? await lookupOffThread(
                    host: host, port: port,
                    deadline: deadline.capping(min(deadline.remaining(on: timeBase) / 4, .seconds(1)), from: timeBase.monotonicNow()),
                    timeBase: timeBase, literal: true),
                !synthesized.isEmpty
            {
                return synthesized
            }
            #endif
            return literal
        }
        let resolved = try await lookupOffThread(host: host, port: port, deadline: deadline, timeBase: timeBase)
        guard !resolved.isEmpty else { throw NTPClientError(.noAddresses, host) }
        switch policy.select(resolved, forHost: host) {
        case .use(let addresses):
            return addresses
        case .refused(let refused):
            let listed = refused.prefix(4).map { "\($0.address) (\($0.address.scope))" }.joined(separator: ", ")
            throw NTPClientError(.localAddresses, "\(host) resolved only to \(listed)")
        }
    }

    /// `getaddrinfo` on a dispatch queue, until `deadline` on `timeBase`'s monotonic clock.
    private static func lookupOffThread(
        host: String, port: Int, deadline: Deadline, timeBase: any TimeBase, literal: Bool = false
    ) async throws -> [IPEndpoint] {
        let started = timeBase.monotonicNow()
        let outcome = Locked<Result<[IPEndpoint], NTPClientError>?>(nil)
        let waiters = Waiters()
        @Sendable func finish(_ result: Result<[IPEndpoint], NTPClientError>) {
            let first = outcome.withLock { outcome in
                defer { outcome = outcome ?? result }
                return outcome == nil
            }
            if first { waiters.wakeAll() }
        }
        DispatchQueue.global(qos: .userInitiated).async {
            do throws(NTPClientError) {
                finish(.success(try lookup(host: host, port: port, numericOnly: false, literal: literal) ?? []))
            } catch {
                finish(.failure(error))
            }
        }
        // On the monotonic clock that counts time asleep: a lookup the device slept through has timed out.
        let timer = DeadlineTimer(at: deadline, on: timeBase) {
            let waited = started.duration(to: deadline.instant)
            finish(.failure(NTPClientError(.dnsFailure, "\(host): no answer from the resolver within \(waited.readable)")))
        }
        defer { timer.cancel() }
        return try await waiters.wait { outcome.withLock { $0 } }.get()
    }

    /// `getaddrinfo` for UDP: every IPv4 and IPv6 address, in the resolver's order.
    /// - Parameters:
    ///   - numericOnly: Only parse an IP literal (`AI_NUMERICHOST`: no lookup); `nil` when `host` is
    ///     not one.
    ///   - literal: `host` is an IPv4 literal to resolve as Apple's NAT64 guidance does.
    private static func lookup(host: String, port: Int, numericOnly: Bool, literal: Bool = false) throws(NTPClientError) -> [IPEndpoint]? {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Darwin)
        hints.ai_socktype = SOCK_DGRAM
        #else
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        #endif
        hints.ai_flags = numericOnly ? AI_NUMERICHOST | AI_NUMERICSERV : AI_NUMERICSERV
        #if canImport(Darwin)
        // AI_DEFAULT (AI_V4MAPPED_CFG | AI_ADDRCONFIG), as Apple's example of resolving an IPv4
        // literal on a NAT64 network passes it.
        if literal { hints.ai_flags = AI_V4MAPPED_CFG | AI_ADDRCONFIG | AI_NUMERICSERV }
        #endif
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &result)
        guard status == 0 else {
            if numericOnly { return nil }
            throw NTPClientError(.dnsFailure, "\(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(result) }
        var endpoints: [IPEndpoint] = []
        var cursor = result
        while let info = cursor {
            defer { cursor = info.pointee.ai_next }
            if let address = info.pointee.ai_addr, let endpoint = SocketAddressStorage.endpoint(address), !endpoints.contains(endpoint) {
                endpoints.append(endpoint)
            }
        }
        return endpoints
    }
}

import TimeSync

/// What an NTS client holds for one server between key exchanges (RFC 8915 §5.7): the two keys,
/// the unused cookies, where to send requests, and when the keys were made.
///
/// Policy, not I/O: a cookie is taken out before it is sent and never given back; replies bring new
/// ones (up to `NTSKEResponse.maximumCookies`); the association is spent when the cookies run out,
/// when an NTS NAK arrives, or when it is older than the client's limit — the client then makes a new
/// key exchange.
package struct NTSAssociation: Sendable {
    /// The client-to-server key.
    package let clientToServer: any NTSCipher
    /// The server-to-client key.
    package let serverToClient: any NTSCipher
    /// The NTP server's host (the key-exchange host unless the server named another).
    package let host: String
    /// The NTP server's port (123 unless the server named another).
    package let port: UInt16
    /// When the key exchange finished, on the monotonic clock.
    package let established: MonotonicInstant
    /// The AEAD algorithm the keys are for.
    package let algorithm: UInt16
    /// The cookies not yet sent, oldest first.
    package private(set) var cookies: [[UInt8]]
    /// Whether the server answered a request with an NTS NAK: its cookies are no good any more.
    package private(set) var wasRejected = false

    /// An association from a key exchange's response and the keys exported from its TLS session.
    /// - Parameters:
    ///   - response: The server's response.
    ///   - keyExchangeHost: The host the key exchange was made with (the NTP host unless the response
    ///     names another).
    ///   - clientToServer: The client-to-server key.
    ///   - serverToClient: The server-to-client key.
    ///   - established: When the exchange finished, on the monotonic clock.
    package init(
        response: NTSKEResponse, keyExchangeHost: String, clientToServer: any NTSCipher, serverToClient: any NTSCipher,
        established: MonotonicInstant
    ) {
        self.clientToServer = clientToServer
        self.serverToClient = serverToClient
        self.host = response.server ?? keyExchangeHost
        self.port = response.port ?? 123
        self.established = established
        self.algorithm = response.algorithm
        self.cookies = Array(response.cookies.prefix(NTSKEResponse.maximumCookies))
    }

    /// Takes the oldest cookie out, to send once.
    /// - Returns: `nil` when none is left.
    package mutating func takeCookie() -> [UInt8]? {
        cookies.isEmpty ? nil : cookies.removeFirst()
    }

    /// Placeholders to send beside the cookie just taken, to come back to a full jar.
    package var placeholdersWanted: Int {
        max(0, NTSKEResponse.maximumCookies - cookies.count - 1)
    }

    /// Keeps the cookies an authenticated reply carried (up to `NTSKEResponse.maximumCookies` in
    /// all; cookies of a size no request could carry are left out).
    package mutating func add(cookies new: [[UInt8]]) {
        for cookie in new where !cookie.isEmpty && cookie.count <= NTSKEResponse.maximumCookieSize {
            guard cookies.count < NTSKEResponse.maximumCookies else { break }
            cookies.append(cookie)
        }
    }

    /// Records an NTS NAK: the association is spent.
    package mutating func rejected() {
        wasRejected = true
    }

    /// Whether a request can be sent with it at `now`: a cookie is left, no NAK came, and it is
    /// younger than `maximumAge`.
    package func isUsable(at now: MonotonicInstant, maximumAge: Duration) -> Bool {
        !cookies.isEmpty && !wasRejected && established.duration(to: now) < maximumAge
    }
}

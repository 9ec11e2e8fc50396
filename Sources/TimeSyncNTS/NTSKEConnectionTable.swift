#if NTS
import NIOCore
import TimeSync

/// Whom a key-exchange connection counts against for
/// ``NTSKEServer/Configuration/maximumConnectionsPerAddress``: an IPv4 address, or an IPv6 client's
/// /64 (one host usually owns a whole /64, so counting by single addresses would let it open
/// connections without end). An IPv4-mapped IPv6 address is its IPv4 address.
package enum NTSKEClientAddress: Sendable, Hashable {
    /// An IPv4 address, in network byte order.
    case v4(UInt32)
    /// The first 64 bits of an IPv6 address.
    case v6(UInt64)

    /// The client of a socket address; `nil` for a Unix domain socket or no address.
    package init?(_ address: SocketAddress?) {
        switch address {
        case .v4(let v4):
            self = .v4(v4.address.sin_addr.s_addr)
        case .v6(let v6):
            var raw = v6.address.sin6_addr
            let bytes = withUnsafeBytes(of: &raw) { Array($0) }
            guard bytes.count == 16 else { return nil }
            if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
                self = .v4(bytes[12..<16].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) })
            } else {
                self = .v6(bytes[0..<8].reduce(0) { $0 << 8 | UInt64($1) })
            }
        case .unixDomainSocket, nil:
            return nil
        }
    }
}

extension NTPRateLimitKey {
    /// The rate limiter's key for a client: its IPv4 address, or its IPv6 /64.
    package init(_ address: NTSKEClientAddress) {
        switch address {
        case .v4(let networkOrder): self.init(ipv4: UInt32(bigEndian: networkOrder))
        case .v6(let prefix): self.init(high: prefix, low: 0)
        }
    }
}

/// The open connections of a key-exchange server, sans I/O: the two caps of
/// ``NTSKEServer/Configuration``, and which connection has been in its key exchange longest (the
/// one closed to make room when the server is full).
///
/// Generic over the handle by which the caller closes a connection (a `Channel`; anything in tests).
/// - Complexity: Amortized O(1) per call.
package struct NTSKEConnectionTable<Handle> {
    /// One connection's key in the table.
    package typealias ID = UInt64

    /// What to do with a new connection.
    package enum Admission {
        /// Keep it.
        case admitted(ID)
        /// Keep it, and close this one (in its key exchange longest) to make room: the table no
        /// longer counts it.
        case admittedClosing(ID, Handle)
        /// Close it: its address has as many connections open as allowed.
        case overAddressLimit
        /// Close it: the server is full and every connection is being answered.
        case full
    }

    fileprivate struct Entry {
        let address: NTSKEClientAddress?
        let handle: Handle
        /// Still in its key exchange (TLS handshake or request): a candidate to close for room.
        var exchanging: Bool
    }

    /// The most connections open at once.
    package let maximumConnections: Int
    /// The most connections open at once from one client address.
    package let maximumConnectionsPerAddress: Int
    private var entries: [ID: Entry] = [:]
    private var perAddress: [NTSKEClientAddress: Int] = [:]
    /// Connections in their key exchange, oldest first; IDs no longer exchanging are stale.
    private var exchanging: [ID] = []
    private var exchangingStart = 0
    private var exchangingCount = 0
    private var nextID: ID = 0

    /// An empty table; each cap is at least 1.
    package init(maximumConnections: Int, maximumConnectionsPerAddress: Int) {
        self.maximumConnections = max(1, maximumConnections)
        self.maximumConnectionsPerAddress = max(1, maximumConnectionsPerAddress)
    }

    /// Connections open.
    package var count: Int { entries.count }

    /// Connections open from `address`.
    package func count(from address: NTSKEClientAddress) -> Int { perAddress[address] ?? 0 }

    /// Takes a new connection, at the start of its key exchange.
    /// - Parameters:
    ///   - handle: How to close it.
    ///   - address: Its client; `nil` counts against the total only.
    /// - Returns: Whether to keep it, and which connection to close for it.
    package mutating func admit(_ handle: Handle, from address: NTSKEClientAddress?) -> Admission {
        if let address, count(from: address) >= maximumConnectionsPerAddress { return .overAddressLimit }
        var closing: Handle?
        if entries.count >= maximumConnections {
            guard let oldest = popOldestExchanging() else { return .full }
            closing = removeEntry(oldest)
        }
        let id = nextID
        nextID &+= 1
        entries[id] = Entry(address: address, handle: handle, exchanging: true)
        exchanging.append(id)
        exchangingCount += 1
        if let address { perAddress[address, default: 0] += 1 }
        return closing.map { .admittedClosing(id, $0) } ?? .admitted(id)
    }

    /// The connection's request is read and being answered: it is no longer closed to make room.
    package mutating func answering(_ id: ID) {
        guard entries[id]?.exchanging == true else { return }
        entries[id]?.exchanging = false
        exchangingCount -= 1
        compactIfStale()
    }

    /// A connection closed (or was closed for another): it no longer counts. Unknown IDs are ignored.
    package mutating func remove(_ id: ID) {
        _ = removeEntry(id)
    }

    private mutating func removeEntry(_ id: ID) -> Handle? {
        guard let entry = entries.removeValue(forKey: id) else { return nil }
        if entry.exchanging { exchangingCount -= 1 }
        if let address = entry.address {
            let remaining = (perAddress[address] ?? 1) - 1
            perAddress[address] = remaining > 0 ? remaining : nil
        }
        compactIfStale()
        return entry.handle
    }

    private mutating func popOldestExchanging() -> ID? {
        while exchangingStart < exchanging.count {
            let id = exchanging[exchangingStart]
            exchangingStart += 1
            if entries[id]?.exchanging == true { return id }
        }
        return nil
    }

    /// Drops stale queue entries once they outnumber the live ones: the queue stays O(connections).
    private mutating func compactIfStale() {
        let queued = exchanging.count - exchangingStart
        guard queued > 64, queued > 2 * exchangingCount else { return }
        exchanging = exchanging[exchangingStart...].filter { entries[$0]?.exchanging == true }
        exchangingStart = 0
    }
}

extension NTSKEConnectionTable: Sendable where Handle: Sendable {}
extension NTSKEConnectionTable.Entry: Sendable where Handle: Sendable {}
#endif

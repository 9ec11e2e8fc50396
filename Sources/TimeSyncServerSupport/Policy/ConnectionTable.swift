#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Whom a connection counts against for a per-address cap: an IPv4 address, or an IPv6 client's
/// prefix (``ClientPrefix``: a /64 unless configured otherwise; one host usually owns a whole /64, so
/// counting by single addresses would let it open connections without end). An IPv4-mapped IPv6
/// address is its IPv4 address.
package enum ConnectionClientAddress: Sendable, Hashable {
    /// An IPv4 address, in network byte order.
    case v4(UInt32)
    /// An IPv6 client's prefix, the rest of the address cleared.
    case v6(high: UInt64, low: UInt64)

    /// The client of a socket address (`SocketAddress.withSockAddr` gives one); `nil` for a Unix
    /// domain socket or anything but IPv4 and IPv6.
    /// - Parameter ipv6PrefixLength: How many leading bits of an IPv6 address name its client.
    package init?(sockaddr address: UnsafePointer<sockaddr>, length: Int, ipv6PrefixLength: Int = ClientPrefix.defaultIPv6Length) {
        switch Int32(address.pointee.sa_family) {
        case AF_INET where length >= MemoryLayout<sockaddr_in>.size:
            self = .v4(UnsafeRawPointer(address).loadUnaligned(as: sockaddr_in.self).sin_addr.s_addr)
        case AF_INET6 where length >= MemoryLayout<sockaddr_in6>.size:
            var raw = UnsafeRawPointer(address).loadUnaligned(as: sockaddr_in6.self).sin6_addr
            let bytes = withUnsafeBytes(of: &raw) { Array($0) }
            if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
                self = .v4(bytes[12..<16].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) })
            } else {
                let prefix = ClientPrefix.ipv6(
                    high: bytes[0..<8].reduce(0) { $0 << 8 | UInt64($1) }, low: bytes[8..<16].reduce(0) { $0 << 8 | UInt64($1) },
                    length: ipv6PrefixLength)
                self = .v6(high: prefix.high, low: prefix.low)
            }
        default:
            return nil
        }
    }
}

/// The open connections of one server, sans I/O: a cap on all of them and one per client address,
/// and which connection has been closable longest (waiting for a request, or still in its key
/// exchange): the one closed to make room when the server is full. A connection busy answering is
/// never closed for room.
///
/// Generic over the handle by which the caller closes a connection (a `Channel`; anything in tests).
/// - Complexity: Amortized O(1) per call.
package struct ConnectionTable<Handle> {
    /// One connection's key in the table.
    package typealias ID = UInt64

    /// What to do with a new connection.
    package enum Admission {
        /// Keep it.
        case admitted(ID)
        /// Keep it, and close this one (closable longest) to make room: the table no longer
        /// counts it.
        case admittedClosing(ID, Handle)
        /// Close it: its address has as many connections open as allowed.
        case overAddressLimit
        /// Close it: the server is full and every connection is busy answering.
        case full
    }

    fileprivate struct Entry {
        let address: ConnectionClientAddress?
        let handle: Handle
        /// Its place in `closable` while it may be closed for room.
        var closableTicket: UInt64?
    }

    /// The most connections open at once.
    package let maximumConnections: Int
    /// The most connections open at once from one client address.
    package let maximumConnectionsPerAddress: Int
    private var entries: [ID: Entry] = [:]
    private var perAddress: [ConnectionClientAddress: Int] = [:]
    /// Closable connections, oldest first, with tickets; an entry whose ticket changed since is stale.
    private var closable: [(id: ID, ticket: UInt64)] = []
    private var closableStart = 0
    private var closableCount = 0
    private var nextID: ID = 0
    private var nextTicket: UInt64 = 0

    /// An empty table; each cap is at least 1.
    package init(maximumConnections: Int, maximumConnectionsPerAddress: Int) {
        self.maximumConnections = max(1, maximumConnections)
        self.maximumConnectionsPerAddress = max(1, maximumConnectionsPerAddress)
    }

    /// Connections open.
    package var count: Int { entries.count }

    /// How to close each open connection.
    package var handles: [Handle] { entries.values.map(\.handle) }

    /// Connections open from `address`.
    package func count(from address: ConnectionClientAddress) -> Int { perAddress[address] ?? 0 }

    /// Takes a new connection, closable until ``setClosable(_:_:)`` says otherwise.
    /// - Parameters:
    ///   - handle: How to close it.
    ///   - address: Its client; `nil` counts against the total only.
    /// - Returns: Whether to keep it, and which connection to close for it.
    package mutating func admit(_ handle: Handle, from address: ConnectionClientAddress?) -> Admission {
        if let address, count(from: address) >= maximumConnectionsPerAddress { return .overAddressLimit }
        var closing: Handle?
        if entries.count >= maximumConnections {
            guard let oldest = popOldestClosable() else { return .full }
            closing = removeEntry(oldest)
        }
        let id = nextID
        nextID &+= 1
        entries[id] = Entry(address: address, handle: handle, closableTicket: nil)
        if let address { perAddress[address, default: 0] += 1 }
        setClosable(id, true)
        return closing.map { .admittedClosing(id, $0) } ?? .admitted(id)
    }

    /// A connection closed (or was closed for another): it no longer counts. Unknown IDs are ignored.
    package mutating func remove(_ id: ID) {
        _ = removeEntry(id)
    }

    /// Marks a connection as closable for room (waiting for a request, in its key exchange) or busy
    /// answering; becoming closable again puts it last in line.
    package mutating func setClosable(_ id: ID, _ isClosable: Bool) {
        guard var entry = entries[id], (entry.closableTicket != nil) != isClosable else { return }
        if isClosable {
            entry.closableTicket = nextTicket
            closable.append((id, nextTicket))
            nextTicket &+= 1
            closableCount += 1
        } else {
            entry.closableTicket = nil
            closableCount -= 1
        }
        entries[id] = entry
        compactIfStale()
    }

    private mutating func removeEntry(_ id: ID) -> Handle? {
        guard let entry = entries.removeValue(forKey: id) else { return nil }
        if entry.closableTicket != nil { closableCount -= 1 }
        if let address = entry.address {
            let remaining = (perAddress[address] ?? 1) - 1
            perAddress[address] = remaining > 0 ? remaining : nil
        }
        compactIfStale()
        return entry.handle
    }

    private mutating func popOldestClosable() -> ID? {
        while closableStart < closable.count {
            let (id, ticket) = closable[closableStart]
            closableStart += 1
            if entries[id]?.closableTicket == ticket { return id }
        }
        return nil
    }

    /// Drops stale queue entries once they outnumber the live ones: the queue stays O(connections).
    private mutating func compactIfStale() {
        let queued = closable.count - closableStart
        guard queued > 64, queued > 2 * closableCount else { return }
        closable = closable[closableStart...].filter { entries[$0.id]?.closableTicket == $0.ticket }
        closableStart = 0
    }
}

extension ConnectionTable: Sendable where Handle: Sendable {}
extension ConnectionTable.Entry: Sendable where Handle: Sendable {}

#if Hummingbird
import NIOCore

/// Whom a connection counts against for ``HTTPConnectionLimits/maximumConnectionsPerAddress``: an
/// IPv4 address, or an IPv6 client's /64 (one host usually owns a whole /64, so counting by single
/// addresses would let it open connections without end). An IPv4-mapped IPv6 address is its IPv4
/// address.
package enum HTTPClientAddress: Sendable, Hashable {
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

/// The open connections of one server, sans I/O: the two caps of ``HTTPConnectionLimits``, and
/// which connection has waited longest for a request (the first closed when the server is full).
///
/// Generic over the handle by which the caller closes a connection (a `Channel`; anything in tests).
/// - Complexity: Amortized O(1) per call.
package struct HTTPConnectionTable<Handle> {
    /// One connection's key in the table.
    package typealias ID = UInt64

    /// What to do with a new connection.
    package enum Admission {
        /// Keep it.
        case admitted(ID)
        /// Keep it, and close this one (open longest without a request) to make room: the table
        /// no longer counts it.
        case admittedClosing(ID, Handle)
        /// Close it: its address has as many connections open as allowed.
        case overAddressLimit
        /// Close it: the server is full and every connection is answering a request.
        case full
    }

    fileprivate struct Entry {
        let address: HTTPClientAddress?
        let handle: Handle
        /// Its place in `waiting` while it waits for a request.
        var waitingTicket: UInt64?
    }

    /// The caps.
    package let maximumConnections: Int
    package let maximumConnectionsPerAddress: Int
    private var entries: [ID: Entry] = [:]
    private var perAddress: [HTTPClientAddress: Int] = [:]
    /// Waiting connections, oldest first, with tickets; an entry whose ticket changed since is stale.
    private var waiting: [(id: ID, ticket: UInt64)] = []
    private var waitingStart = 0
    private var waitingCount = 0
    private var nextID: ID = 0
    private var nextTicket: UInt64 = 0

    /// An empty table.
    package init(limits: HTTPConnectionLimits) {
        maximumConnections = limits.maximumConnections
        maximumConnectionsPerAddress = limits.maximumConnectionsPerAddress
    }

    /// Connections open.
    package var count: Int { entries.count }

    /// How to close each open connection.
    package var handles: [Handle] { entries.values.map(\.handle) }

    /// Connections open from `address`.
    package func count(from address: HTTPClientAddress) -> Int { perAddress[address] ?? 0 }

    /// Takes a new connection, waiting for its first request.
    /// - Parameters:
    ///   - handle: How to close it.
    ///   - address: Its client; `nil` counts against the total only.
    /// - Returns: Whether to keep it, and which connection to close for it.
    package mutating func admit(_ handle: Handle, from address: HTTPClientAddress?) -> Admission {
        if let address, count(from: address) >= maximumConnectionsPerAddress { return .overAddressLimit }
        var closing: Handle?
        if entries.count >= maximumConnections {
            guard let oldest = popOldestWaiting() else { return .full }
            closing = removeEntry(oldest)
        }
        let id = nextID
        nextID &+= 1
        entries[id] = Entry(address: address, handle: handle, waitingTicket: nil)
        if let address { perAddress[address, default: 0] += 1 }
        setWaiting(id, true)
        return closing.map { .admittedClosing(id, $0) } ?? .admitted(id)
    }

    /// A connection closed (or was closed for another): it no longer counts. Unknown IDs are ignored.
    package mutating func remove(_ id: ID) {
        _ = removeEntry(id)
    }

    /// Marks a connection as waiting for a request (idle, or receiving a head) or answering one.
    package mutating func setWaiting(_ id: ID, _ isWaiting: Bool) {
        guard var entry = entries[id], (entry.waitingTicket != nil) != isWaiting else { return }
        if isWaiting {
            entry.waitingTicket = nextTicket
            waiting.append((id, nextTicket))
            nextTicket &+= 1
            waitingCount += 1
        } else {
            entry.waitingTicket = nil
            waitingCount -= 1
        }
        entries[id] = entry
        compactIfStale()
    }

    private mutating func removeEntry(_ id: ID) -> Handle? {
        guard let entry = entries.removeValue(forKey: id) else { return nil }
        if entry.waitingTicket != nil { waitingCount -= 1 }
        if let address = entry.address {
            let remaining = (perAddress[address] ?? 1) - 1
            perAddress[address] = remaining > 0 ? remaining : nil
        }
        compactIfStale()
        return entry.handle
    }

    private mutating func popOldestWaiting() -> ID? {
        while waitingStart < waiting.count {
            let (id, ticket) = waiting[waitingStart]
            waitingStart += 1
            if entries[id]?.waitingTicket == ticket { return id }
        }
        return nil
    }

    /// Drops stale queue entries once they outnumber the live ones: the queue stays O(connections).
    private mutating func compactIfStale() {
        let queued = waiting.count - waitingStart
        guard queued > 64, queued > 2 * waitingCount else { return }
        waiting = waiting[waitingStart...].filter { entries[$0.id]?.waitingTicket == $0.ticket }
        waitingStart = 0
    }
}

extension HTTPConnectionTable: Sendable where Handle: Sendable {}
extension HTTPConnectionTable.Entry: Sendable where Handle: Sendable {}
#endif

// What the load generators share: usage errors, the server's CPU time, the clocks, their UDP sockets.
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The options every load generator takes: where to send, the rates, how long each, from how many
/// source ports, JSON output, the server process whose CPU time to read.
public struct LoadOptions {
    public var host = "127.0.0.1"
    public var port: UInt16
    public var rates: [Int]
    public var seconds = 2.0
    public var sockets = 16
    public var json = false
    public var serverPID: Int32?

    /// Parses `arguments` (the program's name first); a flag not listed above goes to `other`, with
    /// a function that reads its value, and is an error when `other` returns false.
    public init(_ arguments: [String], port: UInt16, rates: [Int], other: (String, () throws -> String) throws -> Bool) throws {
        self.port = port
        self.rates = rates
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            func value() throws -> String {
                guard let v = iterator.next() else { throw UsageError("\(argument) needs a value") }
                return v
            }
            switch argument {
            case "--host": host = try value()
            case "--port":
                guard let p = UInt16(try value()), p > 0 else { throw UsageError("--port takes 1-65535") }
                self.port = p
            case "--rates":
                self.rates = try value().split(separator: ",").map {
                    guard let r = Int($0), r > 0 else { throw UsageError("--rates takes positive integers") }
                    return r
                }
            case "--seconds":
                guard let s = Double(try value()), s > 0, s <= 60 else { throw UsageError("--seconds takes (0, 60]") }
                seconds = s
            case "--sockets":
                guard let k = Int(try value()), (1...256).contains(k) else { throw UsageError("--sockets takes 1-256") }
                sockets = k
            case "--json": json = true
            case "--server-pid":
                guard let pid = Int32(try value()), pid > 0 else { throw UsageError("--server-pid takes a process id") }
                serverPID = pid
            default:
                guard try other(argument, value) else { throw UsageError("unknown argument \(argument)") }
            }
        }
    }
}

public struct UsageError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// User + system CPU seconds a process has used so far, from /proc/PID/stat.
public func cpuSeconds(pid: Int32) -> Double? {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
    else { return nil }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

public func monotonicNanoseconds() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}

public func realtimeNanoseconds() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}

/// A UDP socket for requests to `host`:`port`: connected (from 127.0.0.1), or with `unconnected`
/// bound to the wildcard address, so that it sends from any loopback address and gets the replies.
public func openSocket(host: String, port: UInt16, unconnected: Bool = false) throws -> Int32 {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { throw UsageError("--host must be an IPv4 address") }
    #if canImport(Glibc)
    let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
    #else
    let fd = socket(AF_INET, SOCK_DGRAM, 0)
    #endif
    guard fd >= 0 else { throw UsageError("socket() failed") }
    var size: Int32 = 8 << 20
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    if unconnected {
        var any = sockaddr_in()
        any.sin_family = sa_family_t(AF_INET)
        let bound = withUnsafePointer(to: &any) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw UsageError("bind() failed") }
        return fd
    }
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else { throw UsageError("connect() failed") }
    return fd
}


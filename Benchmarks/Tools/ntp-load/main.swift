// ntp-load: offers SNTP client requests at rising rates to one server and reports, per rate, the
// answered requests per second and the reply latency (p50/p99). The same generator and settings are
// used against every server under test, so the figures compare side by side.
//
//   ntp-load --host 127.0.0.1 --port 12300 --rates 5000,10000,20000 --seconds 2 [--sockets 16] [--json]
//            [--sources 60000] [--server-pid PID] [--nts-ke HOST:PORT --ca-file FILE]
//
// With `--nts-ke` the requests are NTS requests (RFC 8915): one key exchange first, then 4096 distinct
// requests sealed with its key (each its own transmit timestamp and Unique Identifier, all carrying one
// of its cookies: the server keeps no state, so each costs it the whole work of an NTS request), sent in
// turn to the NTP port the exchange names (`--port` when it names none). A reply counts when it echoes
// one of them; the latency is not measured (the transmit timestamps are the sealed ones).
//
// Requests leave from `--sockets` source ports in turn, as from that many clients: a server that
// spreads clients over several sockets (SO_REUSEPORT) sees them spread; one that does not, does not care.
// They all come from one address (127.0.0.1), as a flood would; with `--sources N` they come in turn
// from N distinct loopback addresses (127.1.0.0, 127.1.0.1, …, all of 127.0.0.0/8 is this machine's
// on Linux; set per datagram with IP_PKTINFO), as from N clients, for a server's per-address rate
// limit. Each step reports replies and Kiss-o'-Death kisses apart, the bytes sent and received, and
// with `--server-pid` the CPU time the server process used during the step.
//
// Each request's transmit timestamp carries the send instant (monotonic ns); a server echoes it as the
// origin timestamp, so the latency is computed from the reply alone, with no shared state. The reply's
// receive timestamp (t2) is compared with that send instant on the wall clock: how late after the
// request left the server says it arrived (loopback transit plus any time the request waited in the
// server's socket queue before being timestamped), p50/p99 per step.
import CBatchSocket
import LoadSupport
import Foundation
import TimeSync
import TimeSyncWire
import TimeSyncNTS

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct Options {
    var host: String
    var port: UInt16
    var rates: [Int]
    var seconds: Double
    var sockets: Int
    var json: Bool
    var sources = 0
    var serverPID: Int32?
    var ntsKeyExchange: (host: String, port: Int)?
    var caFile: String?

    init(_ arguments: [String]) throws {
        var sources = 0
        var ntsKeyExchange: (host: String, port: Int)?
        var caFile: String?
        let common = try LoadOptions(arguments, port: 123, rates: [5_000, 10_000, 20_000, 40_000, 80_000]) { flag, value in
            switch flag {
            case "--sources":
                guard let n = Int(try value()), (1...(1 << 22)).contains(n) else { throw UsageError("--sources takes 1-4194304") }
                sources = n
            case "--nts-ke":
                let text = try value()
                guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (1...65535).contains(port) else {
                    throw UsageError("--nts-ke takes HOST:PORT")
                }
                ntsKeyExchange = (String(text[..<colon]), port)
            case "--ca-file": caFile = try value()
            default: return false
            }
            return true
        }
        (host, port, rates, seconds, sockets, json, serverPID) = (
            common.host, common.port, common.rates, common.seconds, common.sockets, common.json, common.serverPID
        )
        (self.sources, self.ntsKeyExchange, self.caFile) = (sources, ntsKeyExchange, caFile)
    }
}

struct StepResult: Encodable {
    var offeredRate: Int
    var sent: Int
    /// Replies and kisses.
    var answered: Int
    var answeredRate: Double
    var p50LatencyMicroseconds: Double?
    var p99LatencyMicroseconds: Double?
    /// t2 − the request's send instant (wall clock): how late the server dates a request's arrival.
    var p50ReceiveLagMicroseconds: Double?
    var p99ReceiveLagMicroseconds: Double?
    /// Kiss-o'-Death replies (stratum 0) among the answered.
    var kisses: Int
    var sentBytes: Int
    var receivedBytes: Int
    /// CPU time (user + system) the `--server-pid` process used from the first send to the last reply.
    var serverCPUSeconds: Double?
}

/// A batch of requests' source addresses, or none for connected sockets.
struct Sources {
    let count: Int
    private var next = 0
    init(count: Int) { self.count = count }

    /// 127.1.0.0 + index, in network byte order.
    static func address(_ index: Int) -> UInt32 { (UInt32(127) << 24 | UInt32(1) << 16 | UInt32(index)).bigEndian }

    /// The next `n` addresses in turn.
    mutating func take(_ n: Int, into batch: inout [UInt32]) {
        for i in 0..<n {
            batch[i] = Self.address(next)
            next = (next + 1) % count
        }
    }
}

/// An NTP timestamp (seconds since 1900, 32.32 fixed point) as nanoseconds since 1970.
func unixNanoseconds(ntp: UInt64) -> Int64 {
    let seconds = Int64(ntp >> 32) - 2_208_988_800
    return seconds * 1_000_000_000 + Int64((UInt64(ntp & 0xFFFF_FFFF) * 1_000_000_000) >> 32)
}

/// NTS requests ready to send: made once, after one key exchange.
struct NTSLoad {
    var datagrams: [[UInt8]]
    /// The transmit timestamps sent, which replies echo as their origin.
    var origins: Set<UInt64>
    var length: Int { datagrams[0].count }
    var ntpPort: UInt16?
    var keyExchange: Duration

    init(host: String, port: Int, caFile: String?, count: Int = 4096) async throws {
        let exchange = try await NTSKeyExchange(host: host, port: port, trust: .init(additionalAuthorities: caFile.map { [$0] } ?? []))
            .perform(timeout: .seconds(10))
        let cipher = try AESSIVCMAC256(key: exchange.clientToServerKey)
        var generator = SystemRandomNumberGenerator()
        var datagrams: [[UInt8]] = []
        var origins: Set<UInt64> = []
        func field(_ type: UInt16, _ value: [UInt8]) -> [UInt8] {
            let length = UInt16(4 + value.count)
            return [UInt8(type >> 8), UInt8(type & 0xFF), UInt8(length >> 8), UInt8(length & 0xFF)] + value
        }
        func random(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) } }
        // Each request as a client sends it (RFC 8915 §5.7): a random transmit timestamp, a 32-byte
        // Unique Identifier, the cookie (padded to 4), and the Authenticator sealed over all of it.
        let cookie = exchange.cookies[0] + [UInt8](repeating: 0, count: (4 - exchange.cookies[0].count % 4) % 4)
        while datagrams.count < count {
            let transmit = UInt64.random(in: 1...UInt64.max, using: &generator)
            guard origins.insert(transmit).inserted else { continue }
            var bytes = NTPPacket(version: 4, mode: .client, transmitTimestamp: NTPTimestamp(rawValue: transmit)).encoded()
            bytes += field(NTSExtensionFieldType.uniqueIdentifier, random(32))
            bytes += field(NTSExtensionFieldType.cookie, cookie)
            let nonce = random(16)
            let sealed = cipher.seal([], nonce: nonce, associatedData: bytes)
            bytes += field(NTSExtensionFieldType.authenticator, [0, 16, 0, UInt8(sealed.count)] + nonce + sealed)
            datagrams.append(bytes)
        }
        self.datagrams = datagrams
        self.origins = origins
        self.ntpPort = exchange.ntpPort
        self.keyExchange = exchange.duration
    }
}

/// The most datagrams per `sendmmsg`/`recvmmsg` call: the generator spends its core on the kernel's
/// per-packet work, not on system-call entry, so it can offer more than one server core answers.
let batchLimit = 64

/// Runs one rate step: sends for `seconds`, collects replies until half a second after the last send.
/// Requests go out in `sendmmsg` batches of whatever is due (at most `batchLimit`), each stamped with
/// the instant its batch is sent; replies come in through `recvmmsg` on a second thread.
func step(fds: [Int32], rate: Int, seconds: Double, options: Options, nts: NTSLoad? = nil) -> StepResult {
    let total = Int(Double(rate) * seconds)
    var sources = options.sources > 0 ? Sources(count: options.sources) : nil
    var batchSources = [UInt32](repeating: 0, count: batchLimit)
    var server = sockaddr_in()
    inet_pton(AF_INET, options.host, &server.sin_addr)
    let cpuBefore = options.serverPID.flatMap { cpuSeconds(pid: $0) }
    let start = monotonicNanoseconds()
    let wallMinusMonotonic = realtimeNanoseconds() - monotonicNanoseconds()
    let sendEnd = start + Int64(seconds * 1e9)
    // The receiver publishes its result through a box the main thread reads after the semaphore.
    let done = DispatchSemaphore(value: 0)
    let box = LatencyBox()
    Thread {
        var latencies: [Int64] = []
        latencies.reserveCapacity(total)
        var lags: [Int64] = []
        lags.reserveCapacity(total)
        var kisses = 0
        var unstamped = 0  // NTS replies: answered, with no send instant to measure from
        var receivedBytes = 0
        let size = 512
        var buffer = [UInt8](repeating: 0, count: size * batchLimit)
        var lengths = [UInt32](repeating: 0, count: batchLimit)
        var polled = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        while monotonicNanoseconds() < sendEnd + 500_000_000 {
            guard poll(&polled, nfds_t(polled.count), 100) > 0 else { continue }
            for index in polled.indices where polled[index].revents & Int16(POLLIN) != 0 {
                let n = buffer.withUnsafeMutableBytes { bytes in
                    lengths.withUnsafeMutableBufferPointer {
                        batch_receive(polled[index].fd, bytes.baseAddress, UInt32(size), UInt32(batchLimit), $0.baseAddress)
                    }
                }
                let now = monotonicNanoseconds()
                guard n > 0 else { continue }
                for i in 0..<Int(n) {
                    let base = i * size
                    receivedBytes += Int(lengths[i])
                    guard lengths[i] >= 48, buffer[base] & 0x7 == 4 else { continue }
                    var origin: UInt64 = 0
                    for j in 24..<32 { origin = origin << 8 | UInt64(buffer[base + j]) }
                    if let nts {
                        // NTS: no send instant in the request; count the replies to ours.
                        if nts.origins.contains(origin) {
                            unstamped += 1
                            if buffer[base + 1] == 0 { kisses += 1 }
                        }
                        continue
                    }
                    let sent = Int64(bitPattern: origin)
                    if sent >= start && sent <= now {
                        latencies.append(now - sent)
                        var receive: UInt64 = 0
                        for j in 32..<40 { receive = receive << 8 | UInt64(buffer[base + j]) }
                        if buffer[base + 1] != 0 { lags.append(unixNanoseconds(ntp: receive) - (sent + wallMinusMonotonic)) }
                        if buffer[base + 1] == 0 { kisses += 1 }
                    }
                }
            }
        }
        box.latencies = latencies
        box.lags = lags
        box.unstamped = unstamped
        box.kisses = kisses
        box.receivedBytes = receivedBytes
        done.signal()
    }.start()
    let length = nts?.length ?? 48
    var packets = [UInt8](repeating: 0, count: length * batchLimit)
    for i in 0..<batchLimit { packets[length * i] = 0x23 }  // LI 0, version 4, mode 3 (client)
    var port = options.port
    if let ntsPort = nts?.ntpPort { port = ntsPort }
    var sent = 0
    var turn = 0
    while sent < total {
        let now = monotonicNanoseconds()
        let due = min(total, Int(Double(now - start) / 1e9 * Double(rate)) + 1)
        while sent < due {
            let count = min(batchLimit, due - sent)
            if let nts {
                for i in 0..<count {
                    let datagram = nts.datagrams[(sent + i) % nts.datagrams.count]
                    packets.replaceSubrange(length * i..<length * (i + 1), with: datagram)
                }
            } else {
                let stamp = UInt64(bitPattern: monotonicNanoseconds())
                for i in 0..<count {
                    for j in 0..<8 { packets[48 * i + 40 + j] = UInt8(truncatingIfNeeded: stamp >> (56 - 8 * UInt64(j))) }
                }
            }
            let fd = fds[turn % fds.count]
            turn += 1
            let n: Int32
            if sources != nil {
                sources!.take(count, into: &batchSources)
                n = packets.withUnsafeBytes { bytes in
                    batchSources.withUnsafeBufferPointer {
                        batch_send_from(fd, bytes.baseAddress, UInt32(length), UInt32(count), server.sin_addr.s_addr, port.bigEndian, $0.baseAddress)
                    }
                }
            } else {
                n = packets.withUnsafeBytes { batch_send(fd, $0.baseAddress, UInt32(length), UInt32(count)) }
            }
            // An error (an ICMP port-unreachable reported back) sends nothing: it is not counted.
            sent += max(0, Int(n))
            if n < count { break }
        }
        if sent < total { usleep(20) }
    }
    done.wait()
    let cpuAfter = options.serverPID.flatMap { cpuSeconds(pid: $0) }
    let sorted = box.latencies.sorted()
    let answered = sorted.count + box.unstamped
    func percentile(_ q: Double, of sorted: [Int64]) -> Double? {
        guard !sorted.isEmpty else { return nil }
        let rank = max(1, Int((q * Double(sorted.count)).rounded(.up)))
        return Double(sorted[min(rank, sorted.count) - 1]) / 1_000
    }
    let lags = box.lags.sorted()
    return StepResult(
        offeredRate: rate, sent: sent, answered: answered, answeredRate: Double(answered) / seconds,
        p50LatencyMicroseconds: percentile(0.5, of: sorted), p99LatencyMicroseconds: percentile(0.99, of: sorted),
        p50ReceiveLagMicroseconds: percentile(0.5, of: lags), p99ReceiveLagMicroseconds: percentile(0.99, of: lags), kisses: box.kisses,
        sentBytes: sent * length, receivedBytes: box.receivedBytes,
        serverCPUSeconds: cpuBefore.flatMap { before in cpuAfter.map { $0 - before } })
}

/// Written by the receiver thread before it signals, read by the main thread after waiting.
final class LatencyBox: @unchecked Sendable {
    // Safe: one write before `done.signal()`, one read after `done.wait()` (the semaphore orders them).
    var latencies: [Int64] = []
    var lags: [Int64] = []
    var unstamped = 0
    var kisses = 0
    var receivedBytes = 0
}

do {
    let options = try Options(CommandLine.arguments)
    var nts: NTSLoad?
    if let keyExchange = options.ntsKeyExchange {
        nts = try await NTSLoad(host: keyExchange.host, port: keyExchange.port, caFile: options.caFile)
        if !options.json, let nts { print("NTS key exchange in \(nts.keyExchange); \(nts.datagrams.count) requests of \(nts.length) bytes") }
    }
    let fds = try (0..<options.sockets).map { _ in
        try openSocket(host: options.host, port: nts?.ntpPort ?? options.port, unconnected: options.sources > 0)
    }
    defer { for fd in fds { close(fd) } }
    var results: [StepResult] = []
    for rate in options.rates {
        let result = step(fds: fds, rate: rate, seconds: options.seconds, options: options, nts: nts)
        results.append(result)
        if !options.json {
            print(String(
                format: "offered %7d/s  answered %9.0f/s  p50 %8.1f µs  p99 %8.1f µs", rate, result.answeredRate,
                result.p50LatencyMicroseconds ?? .nan, result.p99LatencyMicroseconds ?? .nan))
            if let lag50 = result.p50ReceiveLagMicroseconds, let lag99 = result.p99ReceiveLagMicroseconds {
                print(String(format: "  receive timestamp after send: p50 %.1f µs  p99 %.1f µs", lag50, lag99))
            }
            let unanswered = result.sent > 0 ? 1 - Double(result.answered) / Double(result.sent) : .nan
            print(String(
                format: "  sent %d  answered %d (kisses %d)  unanswered %.2f%%  reply bytes per request byte %.4f",
                result.sent, result.answered, result.kisses, unanswered * 100,
                result.sentBytes > 0 ? Double(result.receivedBytes) / Double(result.sentBytes) : .nan))
            if let cpu = result.serverCPUSeconds {
                print(String(
                    format: "  server CPU %.2f s: %.3f µs per request, %.1f%% of a core", cpu,
                    result.sent > 0 ? cpu / Double(result.sent) * 1e6 : .nan, cpu / options.seconds * 100))
            }
        }
        usleep(300_000)
    }
    if options.json {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        print(String(decoding: try encoder.encode(results), as: UTF8.self))
    }
} catch {
    FileHandle.standardError.write(Data("ntp-load: \(error)\n".utf8))
    exit(2)
}

// roughtime-load: offers Roughtime requests at rising rates to one server and reports, per rate, the
// replies per second, how many of a sample of them verify under the server's key, and (with
// `--server-pid`) the CPU time the server used: replies per CPU-second is what one core answers.
//
//   roughtime-load --host 127.0.0.1 --port 2002 --key BASE64 --rates 5000,20000,80000 --seconds 2
//                  [--sockets 16] [--server-pid PID] [--json]
//
// The requests are 4096 distinct ones made up front (1024 bytes, versions 1, 0x8000000c and
// 0x8000000b offered, the key pinned in SRV), sent in turn in `sendmmsg` batches from `--sockets`
// source ports, as from that many clients. Of each step's replies the first 64 are verified in full
// (signatures, Merkle path, the midpoint within the delegation) against the request they answer.
import CBatchSocket
import LoadSupport
import Foundation
import TimeSync
import TimeSyncWire

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

struct Options {
    var host: String
    var port: UInt16
    var key: [UInt8]
    var rates: [Int]
    var seconds: Double
    var sockets: Int
    var json: Bool
    var serverPID: Int32?

    init(_ arguments: [String]) throws {
        var key: [UInt8] = []
        let common = try LoadOptions(arguments, port: 2002, rates: [5_000, 20_000, 80_000]) { flag, value in
            guard flag == "--key" else { return false }
            guard let data = Data(base64Encoded: try value()), data.count == 32 else { throw UsageError("--key takes 32 bytes in base64") }
            key = Array(data)
            return true
        }
        guard !key.isEmpty else { throw UsageError("--key BASE64 is required: the server's long-term public key") }
        (host, port, rates, seconds, sockets, json, serverPID) = (
            common.host, common.port, common.rates, common.seconds, common.sockets, common.json, common.serverPID
        )
        self.key = key
    }
}

struct StepResult: Encodable {
    var offeredRate: Int
    var sent: Int
    var answered: Int
    var answeredRate: Double
    /// Replies verified in full, and those that failed, among the first 64 of the step.
    var verified: Int
    var failedVerification: Int
    /// CPU time (user + system) the `--server-pid` process used during the step.
    var serverCPUSeconds: Double?
    /// Replies per CPU-second of the server: what one of its cores answers.
    var repliesPerCPUSecond: Double?
}

let batchLimit = 64
let requestLength = RoughtimeRequest.minimumLength

final class ReceiveBox: @unchecked Sendable {
    // Safe: written by the receiver before `done.signal()`, read after `done.wait()`.
    var answered = 0
    var samples: [[UInt8]] = []
}

func step(fds: [Int32], rate: Int, options: Options, requests: [RoughtimeRequest], packed: [UInt8], byNonce: [[UInt8]: Int]) -> StepResult {
    let total = Int(Double(rate) * options.seconds)
    let cpuBefore = options.serverPID.flatMap { cpuSeconds(pid: $0) }
    let start = monotonicNanoseconds()
    let sendEnd = start + Int64(options.seconds * 1e9)
    let done = DispatchSemaphore(value: 0)
    let box = ReceiveBox()
    Thread {
        var buffer = [UInt8](repeating: 0, count: requestLength * batchLimit)
        var lengths = [UInt32](repeating: 0, count: batchLimit)
        var polled = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        var answered = 0
        var samples: [[UInt8]] = []
        while monotonicNanoseconds() < sendEnd + 500_000_000 {
            guard poll(&polled, nfds_t(polled.count), 100) > 0 else { continue }
            for index in polled.indices where polled[index].revents & Int16(POLLIN) != 0 {
                let n = buffer.withUnsafeMutableBytes { bytes in
                    lengths.withUnsafeMutableBufferPointer {
                        batch_receive(polled[index].fd, bytes.baseAddress, UInt32(requestLength), UInt32(batchLimit), $0.baseAddress)
                    }
                }
                guard n > 0 else { continue }
                for i in 0..<Int(n) where lengths[i] >= 12 {
                    let base = i * requestLength
                    guard buffer[base..<base + 8].elementsEqual("ROUGHTIM".utf8) else { continue }
                    answered += 1
                    if samples.count < 64 { samples.append(Array(buffer[base..<base + Int(lengths[i])])) }
                }
            }
        }
        box.answered = answered
        box.samples = samples
        done.signal()
    }.start()
    var sent = 0
    var turn = 0
    let pool = requests.count
    while sent < total {
        let now = monotonicNanoseconds()
        let due = min(total, Int(Double(now - start) / 1e9 * Double(rate)) + 1)
        while sent < due {
            let first = sent % pool
            let count = min(batchLimit, due - sent, pool - first)
            let fd = fds[turn % fds.count]
            turn += 1
            let n = packed.withUnsafeBytes { bytes in
                batch_send(fd, bytes.baseAddress! + first * requestLength, UInt32(requestLength), UInt32(count))
            }
            sent += max(0, Int(n))
            if n < count { break }
        }
        if sent < total { usleep(20) }
    }
    done.wait()
    let cpuAfter = options.serverPID.flatMap { cpuSeconds(pid: $0) }
    var verified = 0
    var failed = 0
    for reply in box.samples {
        guard let nonce = RoughtimeResponse.unverifiedNonce(of: reply), let index = byNonce[nonce] else {
            failed += 1
            continue
        }
        if (try? RoughtimeResponse.verify(reply, request: requests[index], publicKey: options.key)) != nil { verified += 1 } else { failed += 1 }
    }
    let cpu = cpuBefore.flatMap { before in cpuAfter.map { $0 - before } }
    return StepResult(
        offeredRate: rate, sent: sent, answered: box.answered, answeredRate: Double(box.answered) / options.seconds, verified: verified,
        failedVerification: failed, serverCPUSeconds: cpu, repliesPerCPUSecond: cpu.flatMap { $0 > 0 ? Double(box.answered) / $0 : nil })
}

do {
    let options = try Options(CommandLine.arguments)
    var generator = SystemRandomNumberGenerator()
    let requests = (0..<4096).map { _ in
        RoughtimeRequest(versions: RoughtimeVersion.defaultOffer, nonce: (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }, serverKey: options.key)
    }
    let packed = requests.flatMap(\.packet)
    precondition(packed.count == requests.count * requestLength)
    var byNonce: [[UInt8]: Int] = [:]
    for (index, request) in requests.enumerated() { byNonce[request.nonce] = index }
    let fds = try (0..<options.sockets).map { _ in try openSocket(host: options.host, port: options.port) }
    defer { for fd in fds { close(fd) } }
    var results: [StepResult] = []
    for rate in options.rates {
        let result = step(fds: fds, rate: rate, options: options, requests: requests, packed: packed, byNonce: byNonce)
        results.append(result)
        if !options.json {
            print(String(
                format: "offered %7d/s  answered %9.0f/s  verified %d/%d", rate, result.answeredRate, result.verified,
                result.verified + result.failedVerification))
            if let cpu = result.serverCPUSeconds {
                print(String(format: "  server CPU %.2f s: %.0f replies per CPU-second", cpu, result.repliesPerCPUSecond ?? .nan))
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
    FileHandle.standardError.write(Data("roughtime-load: \(error)\n".utf8))
    exit(2)
}

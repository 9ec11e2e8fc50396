#if CLI
// udp-relay: a seeded user-space UDP relay between clients and one upstream server, for measuring
// time sync over an impaired path (the kernel here has no netem). Runs until SIGINT/SIGTERM.
//
//   udp-relay --listen 127.0.0.1:P --upstream 127.0.0.1:Q --up-ms 20 --down-ms 5 --jitter-ms 4 \
//             --spike-probability 0.05 --spike-ms 150 --loss 0.02 --seed 7
import Foundation
import NIOCore
import UDPRelay

func option(_ name: String, _ arguments: [String]) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

func hostPort(_ value: String) -> (String, Int)? {
    guard let colon = value.lastIndex(of: ":"), let port = Int(value[value.index(after: colon)...]) else { return nil }
    return (String(value[..<colon]), port)
}

let arguments = CommandLine.arguments
guard let listen = option("--listen", arguments).flatMap(hostPort), let upstream = option("--upstream", arguments).flatMap(hostPort) else {
    FileHandle.standardError.write(Data("usage: udp-relay --listen HOST:PORT --upstream HOST:PORT [--up-ms N] [--down-ms N] [--jitter-ms N] [--spike-probability P] [--spike-ms N] [--loss P] [--seed N]\n".utf8))
    exit(2)
}
func number(_ name: String, _ fallback: Double) -> Double { option(name, arguments).flatMap(Double.init) ?? fallback }
let loss = number("--loss", 0)
let configuration = UDPRelayConfiguration(
    upstreamDelay: .seconds(double: number("--up-ms", 0) / 1e3), downstreamDelay: .seconds(double: number("--down-ms", 0) / 1e3),
    jitter: .seconds(double: number("--jitter-ms", 0) / 1e3), spikeProbability: number("--spike-probability", 0),
    spikeDelay: .seconds(double: number("--spike-ms", 0) / 1e3), upstreamLoss: loss, downstreamLoss: loss,
    seed: UInt64(number("--seed", 1)))

let relay = try await UDPRelay.start(
    upstream: try SocketAddress(ipAddress: upstream.0, port: upstream.1), configuration: configuration, host: listen.0, port: listen.1)
FileHandle.standardOutput.write(Data("relaying \(relay.localAddress) -> \(relay.upstream)\n".utf8))
let (signals, continuation) = AsyncStream.makeStream(of: Int32.self)
// Kept in a global for the process's lifetime: a released source stops delivering.
let signalSources = [SIGINT, SIGTERM].map { signalNumber in
    signal(signalNumber, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: signalNumber)
    source.setEventHandler { continuation.yield(signalNumber) }
    source.resume()
    return source
}
for await _ in signals { break }
let statistics = try await relay.statistics()
print("forwarded up \(statistics.forwardedUpstream) down \(statistics.forwardedDownstream), dropped up \(statistics.droppedUpstream) down \(statistics.droppedDownstream), spikes \(statistics.spikes)")
try await relay.close()
#endif

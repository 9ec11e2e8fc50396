import Dispatch
import Foundation
import TimeSync
import TimeSyncWire
import TimeSyncHTTP
import TimeSyncNTP
import TimeSyncRoughtime
#if CLI
import TimeSyncAsyncHTTPClient
import TimeSyncNTS
#elseif canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Runs `timesync watch` until its duration ends or a signal comes.
/// - Returns: Whether any source answered (the command exits 1 when none did).
/// - Throws: ``CommandFailure`` when the synchronizer cannot be made (a source given twice).
func runWatch(_ options: WatchOptions) async throws -> Bool {
    let timeBase = BootSessionOverride.timeBase()
    let http = WatchHTTP()
    var timeSources: [any SourceDriver] = []
    for source in options.sources {
        switch TimeServerURL.parse(source, command: "watch") {
        case .failure(let problem): throw CommandFailure.invalidArgument(problem.message, help: "Run 'timesync watch --help'.")
        case .success(.ntp(let address)): timeSources.append(NTPTimeSource(address, timeBase: timeBase))
        #if CLI
        case .success(.nts(let server)):
            timeSources.append(
                NTSTimeSource(
                    host: server.host, port: server.port, timeBase: timeBase,
                    configuration: .init(trust: .init(additionalAuthorities: options.caFile))))
        case .success(.roughtime(let server)):
            timeSources.append(RoughtimeTimeSource(client: RoughtimeClient(server, timeBase: timeBase)))
        #endif
        case .success(.http(let url)):
            do {
                timeSources.append(try http.source(url, timeBase: timeBase, timeout: options.timeout))
            } catch {
                await http.shutdown()
                throw CommandFailure.from(error)
            }
        }
    }
    let calibrationStore = options.store.map { FileCalibrationStore(url: URL(fileURLWithPath: $0)) }
    let synchronizer: TimeSynchronizer
    do {
        synchronizer = try TimeSynchronizer(
            sources: timeSources,
            configuration: .init(
                targetError: .seconds(double: options.targetError / 1000), poll: .init(), timeout: .seconds(double: options.timeout),
                persistence: PersistencePolicy(minimumInterval: .seconds(10))),
            timeBase: timeBase, store: calibrationStore,
            onWarning: { FileHandle.standardError.write(Data("timesync watch: \($0)\n".utf8)) })
    } catch {
        await http.shutdown()
        throw CommandFailure.from(error)
    }
    let json = options.json
    let printer = UpdatePrinter(json: json, tolerance: options.tolerance, deadline: options.deadlineTime)
    if synchronizer.clock.reading().status != .unsynchronized {
        printer.print(synchronizer)
    }
    let events = synchronizer.clock.events()
    let activity = synchronizer.events()
    let answered = Locked(false)
    synchronizer.start()

    let stop = StopSignal()
    let signals = [SIGINT, SIGTERM].map { number -> any DispatchSourceSignal in
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number)
        source.setEventHandler { stop.fire() }
        source.resume()
        return source
    }
    await withTaskGroup(of: Void.self) { group in
        group.addTask {
            for await event in events {
                switch event {
                case .storeFailed(let reason):
                    // The reason names the file, the system's reason and what to do, in one line.
                    FileHandle.standardError.write(
                        Data("timesync watch: warning: \(reason) (until a write succeeds, the calibration will not survive a restart)\n".utf8))
                case .floorLowered(let by, let reason):
                    FileHandle.standardError.write(Data("timesync watch: the floor kept across reboots was lowered by \(by.readable): \(reason)\n".utf8))
                default: break
                }
            }
        }
        group.addTask {
            for await event in activity {
                switch event {
                case .measured:
                    // After the synchronizer has taken the measurement in: each source's offset is its own latest.
                    answered.withLock { $0 = true }
                    printer.print(synchronizer)
                case .failed(let source, let error): printer.failure(source: source, kind: "failed", detail: error)
                case .kissed(let source, let stopped):
                    printer.failure(
                        source: source, kind: "kissed",
                        detail: stopped ? "the server asked not to be used (Kiss-o'-Death): stopped polling it" : "the server asked to be polled less often (Kiss-o'-Death RATE or HTTP Retry-After): polling slower")
                case .conflictingReplies(let source):
                    printer.failure(source: source, kind: "conflictingReplies", detail: "two different replies to one request: a host on the path may be spoofing this server; exchange discarded")
                default: break
                }
            }
        }
        if let interval = options.interval {
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(double: interval))
                    if Task.isCancelled { break }
                    if synchronizer.clock.reading().status != .unsynchronized { printer.print(synchronizer) }
                }
            }
        }
        if let duration = options.duration {
            group.addTask {
                try? await Task.sleep(for: .seconds(double: duration))
                stop.fire()
            }
        }
        group.addTask { await stop.wait() }
        // Any of: the duration, a signal. Then stop everything.
        _ = await group.next()
        await synchronizer.stop()
        group.cancelAll()
    }
    for source in signals { source.cancel() }
    await http.shutdown()
    if !answered.withLock({ $0 }) {
        FileHandle.standardError.write(Data("timesync watch: no source answered\(options.duration.map { " within \($0) s" } ?? ""): check the addresses, ports and the network (each failure is listed above)\n".utf8))
        return false
    }
    return true
}

#if CLI
/// The HTTP sources' client: AsyncHTTPClient's, shut down when the watch ends.
struct WatchHTTP {
    let client = HTTPTimeSource.makeClient()

    func source(_ url: URL, timeBase: any TimeBase, timeout: Double) throws -> any SourceDriver {
        try HTTPTimeSource(url: url.absoluteString, client: client, timeBase: timeBase, timeout: .seconds(double: timeout))
    }

    func shutdown() async { try? await client.shutdown() }
}
#else
/// The HTTP sources' session (built without the CLI trait: URLSession, no SwiftNIO).
struct WatchHTTP {
    let session = URLSession(configuration: .ephemeral)

    func source(_ url: URL, timeBase: any TimeBase, timeout: Double) throws -> any SourceDriver {
        URLSessionMeasuredSource(url: url, session: session, timeBase: timeBase)
    }

    func shutdown() async { session.finishTasksAndInvalidate() }
}

/// An HTTP server measured like `timesync query` measures it: the precise header when the server
/// sends it, else the refined `Date`; the samples a strict majority agrees on.
struct URLSessionMeasuredSource: SourceDriver {
    let url: URL
    let session: URLSession
    let timeBase: any TimeBase

    var name: String { url.host.map { HostPort.format(host: $0, port: url.port) } ?? url.absoluteString }
    var reference: TimeReference { .utc }

    func measure(until deadline: Deadline) async throws -> [OffsetSample] {
        try await session.timeMeasurement(of: url, samples: 3, timeout: deadline.remaining(on: timeBase), timeBase: timeBase).samples
    }
}
#endif

/// Fires once; waiters wake when it does.
final class StopSignal: Sendable {
    private let fired = Locked(false)
    private let waiters = Waiters()

    func fire() {
        fired.withLock { $0 = true }
        waiters.wakeAll()
    }

    func wait() async {
        await waiters.wait { fired.withLock { $0 } }
    }
}

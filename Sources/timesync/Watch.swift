import Dispatch
import Foundation
import TimeSync
import TimeSyncHTTP
import TimeSyncNTP
#if CLI
import ArgumentParser
import TimeSyncAsyncHTTPClient
import TimeSyncNTS
#elseif canImport(FoundationNetworking)
import FoundationNetworking
#endif

#if CLI

/// `timesync watch`: a synchronizer on the given sources, one line per calibration — `chronyc tracking`
/// and `sources` in one.
struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Keep a clock synchronized to several sources; print each update.",
        discussion: """
            Sources are ntp://host[:port], nts://host[:port] (NTS, RFC 8915: authenticated NTP after a key \
            exchange on port 4460 by default; --ca-file adds certificate authorities), \
            roughtime://host:port?key=BASE64 (Roughtime, RFC 10049: signed time, a floor no unauthenticated \
            source may leave) or http(s):// URLs (the precise TimeSync-Time header, else the \
            refined Date). A line is printed after each measurement, every value named: the status \
            (synchronized / provisional / unsynchronized / noMajority), "offset" (server time − this \
            machine's wall clock) "±" its error (half the bounds' width), and after "sources:" each \
            source's state (selected / falseticker / unselected / suspect / kissed / unsynchronized / \
            conflictingReplies / unreachable / pending / standingBy) with its own latest offset and how \
            old it is, "(stale)" when the source is not answering now. Each failed poll is reported on \
            stderr (with --json: a JSON line {"event": "failed", …} on stdout). Stops after --duration or on \
            SIGINT/SIGTERM; exits 1 when no source answered at all.
            """)

    @Argument(help: ArgumentHelp(WatchOptions.Help.sources))
    var sources: [String]

    @Option(help: ArgumentHelp(WatchOptions.Help.caFile))
    var caFile: [String] = []

    @Option(parsing: .unconditional, help: ArgumentHelp(WatchOptions.Help.duration))
    var duration: Double?

    @Flag(help: ArgumentHelp(WatchOptions.Help.json))
    var json = false

    @Option(help: ArgumentHelp(WatchOptions.Help.store))
    var store: String?

    @Option(parsing: .unconditional, help: ArgumentHelp(WatchOptions.Help.targetError))
    var targetError: Double = WatchOptions.defaults.targetError

    @Option(parsing: .unconditional, help: ArgumentHelp(WatchOptions.Help.timeout))
    var timeout: Double = WatchOptions.defaults.timeout

    @Option(parsing: .unconditional, help: ArgumentHelp(WatchOptions.Help.interval))
    var interval: Double?

    var options: WatchOptions {
        WatchOptions(
            sources: sources, caFile: caFile, duration: duration, json: json, store: store, targetError: targetError, timeout: timeout,
            interval: interval)
    }

    func validate() throws {
        if let problem = options.problem { throw ValidationError(problem) }
    }

    func run() async throws {
        guard try await runWatch(options) else { throw ExitCode(1) }
    }
}
#endif

/// The settings of `timesync watch`, checked the same way whichever way the command was built.
struct WatchOptions: Sendable {
    var sources: [String]
    var caFile: [String] = []
    var duration: Double?
    var json = false
    var store: String?
    /// Milliseconds.
    var targetError: Double = 250
    var timeout: Double = 2
    var interval: Double?

    /// The defaults, for help texts.
    static let defaults = WatchOptions(sources: [])

    /// What is wrong with the settings, as a usage error says it; `nil` when they are good.
    var problem: String? {
        guard !sources.isEmpty else { return "no source: give at least one ntp://, nts://, roughtime:// or http(s):// URL" }
        if let duration, !(duration.isFinite && duration > 0 && duration <= 31_536_000) {
            return "--duration \(duration): give seconds, more than 0 and at most 31536000 (a year)"
        }
        guard targetError.isFinite, targetError > 0, targetError <= 3_600_000 else {
            return "--target-error \(targetError): give milliseconds, more than 0 and at most 3600000"
        }
        guard timeout.isFinite, timeout > 0, timeout <= 60 else { return "--timeout \(timeout): give seconds, more than 0 and at most 60" }
        if let interval, !(interval.isFinite && interval >= 0.1 && interval <= 86_400) {
            return "--interval \(interval): give seconds, from 0.1 to 86400"
        }
        for source in sources {
            if case .failure(let problem) = Self.parse(source) { return problem.message }
        }
        for file in caFile where !FileManager.default.isReadableFile(atPath: file) {
            return "--ca-file '\(file)': no readable file there; give a PEM file of certificate authorities"
        }
        if let store {
            // Only a store (or nothing, or an empty file) is ever replaced.
            do {
                try FileCalibrationStore(url: URL(fileURLWithPath: store)).validate()
            } catch {
                return "--store: \(error)"
            }
        }
        return nil
    }

    enum ParsedSource {
        case ntp(NTPServerAddress)
        #if CLI
        case nts(NTSURL)
        case roughtime(RoughtimeURL)
        #endif
        case http(URL)
    }

    /// A source's usage error.
    struct Problem: Error {
        var message: String
    }

    static func parse(_ source: String) -> Result<ParsedSource, Problem> {
        let lower = source.lowercased()
        if lower.hasPrefix("ntp://") {
            do {
                return .success(.ntp(try NTPServerAddress(validating: source)))
            } catch {
                return .failure(Problem(message: "\(error); give ntp://HOST[:PORT], e.g. ntp://pool.ntp.org or ntp://[::1]:12300"))
            }
        }
        if lower.hasPrefix("nts://") {
            #if CLI
            do {
                return .success(.nts(try NTSURL(source)))
            } catch {
                return .failure(Problem(message: "\(error); give nts://HOST[:PORT], e.g. nts://time.cloudflare.com or nts://127.0.0.1:4460"))
            }
            #else
            return .failure(Problem(message: traitMissing("nts", command: "watch")))
            #endif
        }
        if lower.hasPrefix("roughtime://") {
            #if CLI
            do {
                return .success(.roughtime(try RoughtimeURL(source)))
            } catch {
                return .failure(Problem(message: RoughtimeURL.problem(error)))
            }
            #else
            return .failure(Problem(message: traitMissing("roughtime", command: "watch")))
            #endif
        }
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
            guard let url = URL(string: source), let host = url.host, !host.isEmpty else {
                return .failure(Problem(message: "'\(source)' has no host; give http(s)://HOST[:PORT][/PATH]"))
            }
            if HostPort.hasControlCharacter(host) {
                return .failure(
                    Problem(message: "'\(source)': its host holds a control character (a NUL or a line break, perhaps as %00 or %0A); give http(s)://HOST[:PORT][/PATH]"))
            }
            return .success(.http(url))
        }
        return .failure(Problem(message: "'\(source)' is not an ntp://, nts://, roughtime://, http:// or https:// URL"))
    }
}

extension WatchOptions {
    /// Each flag's help, the same in both builds of the command.
    enum Help {
        static let sources = "The sources: ntp://host[:port], nts://host[:port], roughtime://host:port?key=BASE64 or http(s):// URLs."
        static let caFile = "NTS: a PEM file of certificate authorities to trust for key-exchange servers, beside the system's (repeatable)."
        static let duration = "Stop after this many seconds (default: run until SIGINT or SIGTERM)."
        static let json =
            "Print JSON Lines; a usage error is a JSON object {\"error\": …, \"errorType\": \"invalidArgument\", \"help\": …} (exit status 64)."
        static let store = "Keep the calibration in this file: restored at start (an offline start reports it), saved as it changes."
        static let targetError =
            "The error to keep, in milliseconds: polling speeds up when the error would pass it before the next poll, and slows down well below it."
        static let timeout = "Each measurement's deadline, in seconds (more than 0, at most 60)."
        static let interval = "Also print a line every this many seconds, between calibrations (default: only on a calibration)."
    }
}

/// Runs `timesync watch` until its duration ends or a signal comes.
/// - Returns: Whether any source answered (the command exits 1 when none did).
/// - Throws: ``CommandFailure`` when the synchronizer cannot be made (a source given twice).
func runWatch(_ options: WatchOptions) async throws -> Bool {
    let timeBase = SystemTimeBase()
    let http = WatchHTTP()
    var timeSources: [any TimeSource] = []
    for source in options.sources {
        switch WatchOptions.parse(source) {
        case .failure(let problem): throw CommandFailure.invalidArgument(problem.message, help: "Run 'timesync watch --help'.")
        case .success(.ntp(let address)): timeSources.append(NTPTimeSource(address, timeBase: timeBase))
        #if CLI
        case .success(.nts(let server)):
            timeSources.append(
                NTSTimeSource(
                    host: server.host, port: server.port, timeBase: timeBase,
                    configuration: .init(trust: .init(additionalAuthorities: options.caFile))))
        case .success(.roughtime(let server)):
            timeSources.append(
                RoughtimeTimeSource(
                    client: RoughtimeClient(
                        host: server.host, port: server.port, publicKey: server.publicKey, versions: server.versions, timeBase: timeBase)))
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
                targetError: .seconds(double: options.targetError / 1000), timeout: .seconds(double: options.timeout),
                persistence: PersistencePolicy(minimumInterval: .seconds(10))),
            timeBase: timeBase, store: calibrationStore,
            onWarning: { FileHandle.standardError.write(Data("timesync watch: \($0)\n".utf8)) })
    } catch {
        await http.shutdown()
        throw CommandFailure.from(error)
    }
    let json = options.json
    let printer = UpdatePrinter(json: json)
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
                    FileHandle.standardError.write(Data("timesync watch: warning: the store cannot be written (\(reason)); the calibration will not survive a restart\n".utf8))
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
                case .noSourceAnswered, .resynchronizing, .fallingBack: break
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

    func source(_ url: URL, timeBase: SystemTimeBase, timeout: Double) throws -> any TimeSource {
        try HTTPTimeSource(url: url.absoluteString, client: client, timeBase: timeBase, timeout: .seconds(double: timeout))
    }

    func shutdown() async { try? await client.shutdown() }
}
#else
/// The HTTP sources' session (built without the CLI trait: URLSession, no SwiftNIO).
struct WatchHTTP {
    let session = URLSession(configuration: .ephemeral)

    func source(_ url: URL, timeBase: SystemTimeBase, timeout: Double) throws -> any TimeSource {
        URLSessionMeasuredSource(url: url, session: session, timeBase: timeBase)
    }

    func shutdown() async { session.finishTasksAndInvalidate() }
}

/// An HTTP server measured like `timesync query` measures it: the precise header when the server
/// sends it, else the refined `Date`; the samples a strict majority agrees on.
struct URLSessionMeasuredSource: TimeSource {
    let url: URL
    let session: URLSession
    let timeBase: SystemTimeBase

    var name: String { url.host.map { HostPort.format(host: $0, port: url.port) } ?? url.absoluteString }
    var reference: TimeReference { .utc }

    func measure(timeout: Duration) async throws -> [OffsetSample] {
        try await session.timeMeasurement(of: url, samples: 3, timeout: timeout, timeBase: timeBase).samples
    }

    func pollOutcome(for error: any Error) -> PollOutcome {
        HTTPTimeError.pollOutcome(for: error)
    }
}
#endif

/// Prints one update per calibration, serialized.
final class UpdatePrinter: Sendable {
    let json: Bool
    private let lock = Locked(())

    init(json: Bool) { self.json = json }

    struct Update: Encodable {
        var time: String
        var status: String
        var offset: Double?
        var error: Double?
        var restored: Bool?
        var sources: [Source]
    }

    struct Source: Encodable {
        var source: String
        var state: String
        var offset: Double?
        var kissCode: String?
    }

    /// A failed poll: a JSON line, or a line on stderr.
    struct Failure: Encodable {
        var time: String
        var event: String
        var source: String
        var error: String
    }

    func failure(source: String, kind: String, detail: String) {
        let time = "\(SystemTimeBase().wallNow())"
        lock.withLock { _ in
            if json {
                let line = (try? compactJSON(Failure(time: time, event: kind, source: source, error: detail))) ?? "{}"
                FileHandle.standardOutput.write(Data((line + "\n").utf8))
            } else {
                FileHandle.standardError.write(Data("timesync watch: \(source): \(detail)\n".utf8))
            }
        }
    }

    static func statusName(_ status: SynchronizationStatus) -> String {
        switch status {
        case .synchronized: "synchronized"
        case .provisional: "provisional"
        case .unsynchronized: "unsynchronized"
        case .noMajority: "noMajority"
        }
    }

    func print(_ synchronizer: TimeSynchronizer) {
        let clock = synchronizer.clock
        let reading = clock.reading()
        let status = reading.status
        let restored = reading.isRestored
        let offset = clock.calibration.map { WallClockOffset($0, pair: clock.timeBase.wallClockPair()) }
        let statuses = synchronizer.sourceStatuses()
        let sources = statuses.map {
            Source(source: $0.source, state: $0.state.rawValue, offset: $0.wallClockOffset?.secondsValue, kissCode: $0.kissCode)
        }
        let update = Update(
            time: "\(clock.timeBase.wallNow())", status: Self.statusName(status),
            offset: status == .unsynchronized ? nil : offset?.estimate.secondsValue,
            error: status == .unsynchronized ? nil : offset?.error.secondsValue, restored: restored ? true : nil,
            sources: sources)
        let line: String
        if json {
            line = (try? compactJSON(update)) ?? "{}"
        } else {
            line = Self.text(update, statuses: statuses, now: clock.timeBase.monotonicNow())
        }
        lock.withLock { _ in
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
        }
    }

    /// An update as a line, every value named:
    /// `2026-11-25T19:35:05.466Z  synchronized  offset -0.000036 s ± 0.010259 s  sources: a:123 selected +0.000062 s (2 s ago); b:123 unreachable, last +0.000101 s 5 min ago (stale)`.
    /// A source's offset is its own latest sample's (server − this machine's wall clock); it is
    /// marked stale when the source is not answering now (unreachable, kissed, unsynchronized,
    /// conflicting, standing by).
    static func text(_ update: Update, statuses: [TimeSourceStatus], now: MonotonicInstant) -> String {
        let head = update.offset.map { String(format: "offset %+.6f s ± %.6f s", $0, update.error ?? 0) } ?? "offset -"
        let list = statuses.map { source in
            var text = "\(source.source) \(source.state.rawValue)" + (source.kissCode.map { " \($0)" } ?? "")
            guard let offset = source.wallClockOffset else { return text }
            let age = source.lastSampleTime.map { $0.duration(to: now) }.map { " \(Self.age($0)) ago" } ?? ""
            if staleStates.contains(source.state) {
                text += String(format: ", last %+.6f s", offset.secondsValue) + age + " (stale)"
            } else {
                text += String(format: " %+.6f s", offset.secondsValue) + (age.isEmpty ? "" : " (\(age.dropFirst()))")
            }
            return text
        }.joined(separator: "; ")
        return "\(update.time)  \(update.status)\(update.restored == true ? " (restored)" : "")  \(head)  sources: \(list)"
    }

    /// The states of a source not answering now: its last offset is stale.
    static let staleStates: Set<TimeSourceStatus.State> = [.unreachable, .kissed, .unsynchronized, .conflictingReplies, .standingBy]

    /// A duration in whole seconds, minutes or hours.
    static func age(_ duration: Duration) -> String {
        let seconds = max(0, duration.secondsValue)
        if seconds < 120 { return "\(Int(seconds.rounded(.down))) s" }
        if seconds < 7200 { return "\(Int((seconds / 60).rounded(.down))) min" }
        return "\(Int((seconds / 3600).rounded(.down))) h"
    }
}

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

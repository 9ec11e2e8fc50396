#if CLI
import ArgumentParser
import Foundation
import TimeSync

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
            (synchronized / provisional / unsynchronized / noMajority / floorOnly), "offset" (server time − this \
            machine's wall clock) "±" its error (half the bounds' width), or "floor ≥" the server time a \
            --store kept across a reboot (status floorOnly: earlier moments have certainly passed), then \
            "device clock" within --tolerance, ahead or behind, and after "sources:" each \
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

    @Option(parsing: .unconditional, help: ArgumentHelp(WatchOptions.Help.tolerance))
    var tolerance: Double = WatchOptions.defaults.tolerance

    // A negative number of Unix seconds is a value, not a flag.
    @Option(parsing: .unconditional, help: ArgumentHelp(WatchOptions.Help.deadline))
    var deadline: String?

    var options: WatchOptions {
        WatchOptions(
            sources: sources, caFile: caFile, duration: duration, json: json, store: store, targetError: targetError, timeout: timeout,
            interval: interval, tolerance: tolerance, deadline: deadline)
    }

    func validate() throws {
        if let problem = options.problem { throw ValidationError(problem) }
    }

    func run() async throws {
        guard try await runWatch(options) else { throw ExitCode(1) }
    }
}
#endif

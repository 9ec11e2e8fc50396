import Foundation
import TimeSync
import TimeSyncTesting

/// The settings of `timesync demo`, checked the same way whichever way the command was built.
struct DemoOptions: Sendable {
    /// How far the demo server's clock is ahead of this device, in seconds (negative: behind).
    var serverOffset: Double = 90.25
    /// Seconds until the demo flash sale starts (server time), 2 to 60.
    var saleIn: Int = 8
    /// The seed of the simulated network's delays.
    var seed: UInt64 = 7

    /// What is wrong with the settings, as a usage error says it; `nil` when they are good.
    var problem: String? {
        guard serverOffset.isFinite, abs(serverOffset) < 1e9 else {
            return "--server-offset \(serverOffset): give seconds, less than 1000000000 either way"
        }
        guard (2...60).contains(saleIn) else { return "--sale-in \(saleIn): give 2 to 60 seconds" }
        return nil
    }
}

extension DemoOptions {
    /// Each flag's help, the same in both builds of the command.
    enum Help {
        static let serverOffset = "How far the demo server's clock is ahead of this device, in seconds (negative: behind)."
        static let saleIn = "Seconds until the demo flash sale starts (server time), 2 to 60."
        static let seed = "The seed of the simulated network's delays."
    }
}

/// The demo could not tell its story: what happened and what to do.
struct DemoFailure: Error, CustomStringConvertible {
    var message: String
    var help: String
    var description: String { message }
}

/// `timesync demo`: a server whose clock is off, a device clock the user changes mid-run, and a
/// calibrated clock and a countdown that stay right. Offline, in-process, about ten seconds.
/// - Throws: ``DemoFailure`` when the demo servers do not agree within 5 s (a heavily loaded machine).
func runDemo(_ options: DemoOptions) async throws {
    let device = TamperableTimeBase()
    // Three edge servers of one service, sharing its clock; a synchronizer keeps the device's
    // clock calibrated from them.
    let servers = (1...3).map {
        DemoServer(name: "edge-\($0)", offset: .seconds(double: options.serverOffset), seed: options.seed &+ UInt64($0), timeBase: device)
    }
    let server = servers[0]
    let synchronizer = try TimeSynchronizer(
        sources: servers, configuration: .init(poll: PollPolicy(burstCount: 4, burstInterval: .seconds(2))),
        timeBase: device)
    let clock = synchronizer.clock
    let events = clock.events()

    print("""
        TimeSync demo
          servers: three in-process edge servers of one service, sharing one clock \(Duration.readable(seconds: options.serverOffset)) ahead
                   of this device, each reached over a simulated mobile link (20-80 ms each way, seeded)
          device: its wall clock will be moved forward one hour halfway through

        """)
    let started = ContinuousClock.now
    synchronizer.start()
    if let provisional = await synchronizer.firstReading(timeout: .seconds(5)) {
        print("first reading (\(provisional.status)) after \((ContinuousClock.now - started).readable): \(provisional.serverTime) ± \(provisional.error.readable)")
        if provisional.status == .provisional {
            print("  provisional: usable with its bounds, but fewer servers agree than the clock asks for (one reply could be a liar's)")
        }
    }
    guard await synchronizer.waitUntilSynchronized(timeout: .seconds(5)) else {
        throw DemoFailure(
            message: "the demo servers did not agree within 5 s",
            help: "Run the demo again; on a heavily loaded machine, wait until it is quieter.")
    }
    let first = clock.reading()
    print("synchronized (3 servers agree) after \((ContinuousClock.now - started).readable): server time \(first.serverTime) ± \(first.error.readable)")
    let saleStart = first.serverTime.advanced(by: .seconds(options.saleIn))
    print("flash sale starts at \(saleStart) (server time)\n")

    let background = Task {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await clock.monitorWallClock(every: .milliseconds(250)) }
            group.addTask {
                for await event in events {
                    if case .wallClockChanged(let change) = event {
                        print("  !! detected: device wall clock moved \(change.signedReadable) — readings unaffected")
                    }
                }
            }
        }
    }
    defer { background.cancel() }

    print("  device clock              server time (estimate ± bound)     true error   sale starts in")
    var tickCount = 0
    var worst: Int64 = 0
    // Count down to the moment the sale has certainly started (the whole error bound past the start).
    for try await tick in clock.countdown(to: saleStart, untilCertain: true) {
        let reading = clock.reading()
        let truth = server.trueTime()
        let error = reading.serverTime.nanoseconds - truth.nanoseconds
        worst = max(worst, abs(error))
        print(
            "  \(device.wallNow())   \(reading.serverTime) ± \(reading.error.readable.leftPadded(9))"
                + "   \(Duration.nanoseconds(error).signedReadable.leftPadded(10))   \(tick.formatted)")
        tickCount += 1
        if tickCount == options.saleIn / 2 {
            print("  >> the user sets the device clock forward by one hour")
            device.jumpWall(by: .seconds(3600))
        }
        if tick.isFinished {
            let position = clock.position(in: saleStart..<saleStart.advanced(by: .seconds(3600)))
            print("""

                sale started: the clock is \(position.rawValue) the sale window\
                \(position == .within ? " for certain (its whole error bound is past the start)" : "")
                worst error against the server's true time: \(Duration.nanoseconds(worst).readable)
                the device clock is now off by \(server.trueTime().duration(to: device.wallNow()).signedReadable); TimeSync never used it
                """)
        }
    }
    await synchronizer.stop()
}

/// The real clocks, except that the wall clock can be moved the way a user would.
final class TamperableTimeBase: TimeBase {
    private let system = SystemTimeBase()
    private let wallShift = LockedInt64()

    func monotonicNow() -> MonotonicInstant { system.monotonicNow() }
    func wallNow() -> UnixTime { UnixTime(nanoseconds: system.wallNow().nanoseconds + wallShift.value) }
    func sleep(until deadline: MonotonicInstant) async throws { try await system.sleep(until: deadline) }
    func sleep(until deadline: MonotonicInstant, tolerance: Duration) async throws {
        try await system.sleep(until: deadline, tolerance: tolerance)
    }
    var bootSessionID: String? { system.bootSessionID }

    func jumpWall(by duration: Duration) { wallShift.add(duration.nanosecondsClamped) }
}

/// An in-process time server whose clock is off by a fixed amount, behind a simulated network: a
/// `SourceDriver` the synchronizer polls.
final class DemoServer: SourceDriver {
    let name: String
    let offset: Duration
    private let random: LockedGenerator
    private let timeBase: any TimeBase

    init(name: String, offset: Duration, seed: UInt64, timeBase: any TimeBase) {
        self.name = name
        self.offset = offset
        self.timeBase = timeBase
        random = LockedGenerator(seed: seed)
    }

    /// The service's own clock is the reference.
    var reference: TimeReference { .service("demo") }

    /// The server's clock.
    func trueTime() -> UnixTime { SystemTimeBase().wallNow().advanced(by: offset) }

    /// One request/response exchange over the simulated link.
    func measure(until deadline: Deadline) async throws -> [OffsetSample] {
        let t1 = timeBase.monotonicNow()
        try await Task.sleep(for: .milliseconds(random.delayMilliseconds()))
        let t2 = trueTime()
        let t3 = trueTime()
        try await Task.sleep(for: .milliseconds(random.delayMilliseconds()))
        let t4 = timeBase.monotonicNow()
        return [try OffsetSample.exchange(source: name, requestSent: t1, serverReceive: t2, serverTransmit: t3, responseReceived: t4)]
    }
}

/// A seeded generator behind a lock.
final class LockedGenerator: Sendable {
    private let generator: Locked<SeededGenerator>

    init(seed: UInt64) { generator = Locked(SeededGenerator(seed: seed)) }

    /// A one-way delay between 20 and 80 ms, skewed toward the low end.
    func delayMilliseconds() -> Int {
        generator.withLock { 20 + min(60, Int($0.nextExponential(mean: 12))) }
    }
}

/// An integer behind a lock.
final class LockedInt64: Sendable {
    private let stored = Locked<Int64>(0)

    var value: Int64 { stored.withLock { $0 } }
    func add(_ amount: Int64) { stored.withLock { $0 += amount } }
}

extension String {
    /// The string right-aligned in `width` characters (never cut).
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}

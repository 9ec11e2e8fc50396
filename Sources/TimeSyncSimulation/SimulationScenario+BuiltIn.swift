import TimeSync
import TimeSyncTesting

extension SimulationScenario {
    /// The built-in scenarios, by name.
    package static let builtIn: [SimulationScenario] = [
        lan, wifi, mobile, asymmetric, falsetickers, offlineDrift, tamper, serverStep, serverSlew,
        httpGlitch, httpReplay, dateGlitch, dateReplay,
    ]

    /// Eight moments, ten minutes apart from 10 min on, when an HTTP server's answers are 30 s off
    /// for 10 s (less than a poll interval: one measurement sees each, or none).
    static let answerGlitches = (0..<8).map { ClockGlitch(at: 600 + Double($0) * 600, duration: 10, by: 30) }

    /// A built-in scenario by name.
    package static func named(_ name: String) -> SimulationScenario? { builtIn.first { $0.name == name } }

    /// One direction of the home Wi-Fi path shared by `wifi`, `offline-drift`, `tamper` and `server-step`.
    static let wifiDelay = DelayModel(base: 8e-3, jitterMean: 3e-3, spikeProbability: 0.01, spikeMean: 60e-3)

    /// Wired LAN to your own server.
    package static let lan = SimulationScenario(
        name: "lan",
        provenance: """
            Switched Ethernet: ~0.1 ms one-way base, 20 µs mean queueing jitter, 0.1% of packets \
            delayed ~2 ms by bursts, 0.01% loss (typical of a lightly loaded gigabit LAN, cf. ping \
            RTTs of 0.2-0.5 ms). Oscillator 5 ppm: a desktop crystal, the order of the drift chrony \
            reports on idle servers. One own server polled every 16 s (NTP's minimum poll).
            """,
        duration: 7200, pollInterval: 16,
        forward: DelayModel(base: 100e-6, jitterMean: 20e-6, spikeProbability: 0.001, spikeMean: 2e-3),
        backward: DelayModel(base: 100e-6, jitterMean: 20e-6, spikeProbability: 0.001, spikeMean: 2e-3),
        loss: 0.0001, localDrift: 5e-6, servers: [SimulatedServer(name: "lan-server")])

    /// Home Wi-Fi and a broadband uplink to a nearby server.
    package static let wifi = SimulationScenario(
        name: "wifi",
        provenance: """
            802.11 home network plus broadband to a server ~15 ms away: 8 ms one-way base, 3 ms mean \
            contention jitter, 1% of packets delayed ~60 ms (power-save wake-ups and retransmissions, \
            typically tens of ms), 0.5% loss. Oscillator 10 ppm (laptop/phone crystal, commonly ±10-20 \
            ppm). One own server polled every 16 s.
            """,
        duration: 7200, pollInterval: 16,
        forward: wifiDelay, backward: wifiDelay,
        loss: 0.005, localDrift: 10e-6, servers: [SimulatedServer(name: "wifi-server")])

    /// A phone on LTE: long, variable delays with large spikes and loss.
    package static let mobile = SimulationScenario(
        name: "mobile",
        provenance: """
            LTE: ~70 ms median RTT and ~260 ms RRC promotion delay when the radio wakes (Huang et al., \
            "A Close Examination of Performance and Power Characteristics of 4G LTE Networks", \
            MobiSys 2012). Modelled as 30 ms one-way base, 12 ms mean jitter, 3% of packets delayed by a \
            spike of mean 300 ms, 2% loss. Oscillator 15 ppm (phone crystal). One own server, the app \
            calibrating every 30 s from its API traffic.
            """,
        duration: 7200, pollInterval: 30,
        forward: DelayModel(base: 30e-3, jitterMean: 12e-3, spikeProbability: 0.03, spikeMean: 0.3),
        backward: DelayModel(base: 30e-3, jitterMean: 12e-3, spikeProbability: 0.03, spikeMean: 0.3),
        loss: 0.02, localDrift: 15e-6, servers: [SimulatedServer(name: "mobile-server")])

    /// A path much slower one way than the other.
    package static let asymmetric = SimulationScenario(
        name: "asymmetric",
        provenance: """
            Asymmetric access (ADSL/DOCSIS or a congested cellular uplink): request direction 40 ms \
            base with 8 ms mean jitter, reply direction 10 ms base with 2 ms mean jitter, 1% spikes of \
            ~100 ms, 1% loss. No client can see asymmetry in round trips: every strategy's estimate is \
            biased by about half the base difference (15 ms); honest bounds must still hold. Oscillator \
            10 ppm. One server polled every 16 s.
            """,
        duration: 7200, pollInterval: 16,
        forward: DelayModel(base: 40e-3, jitterMean: 8e-3, spikeProbability: 0.01, spikeMean: 0.1),
        backward: DelayModel(base: 10e-3, jitterMean: 2e-3, spikeProbability: 0.01, spikeMean: 0.1),
        loss: 0.01, localDrift: 10e-6, servers: [SimulatedServer(name: "asymmetric-server")])

    /// Five servers, two of which lie by seconds.
    package static let falsetickers = SimulationScenario(
        name: "falsetickers",
        provenance: """
            Five internet NTP servers (15 ms one-way base, 4 ms mean jitter, 1% spikes of ~80 ms, 1% \
            loss), polled every 64 s (NTP's default minimum poll), two of them wrong by +3 s and -2.5 s \
            (misconfigured or unsynchronized servers, as NTP pool monitoring regularly finds). \
            Oscillator 10 ppm.
            """,
        duration: 7200, pollInterval: 64,
        forward: DelayModel(base: 15e-3, jitterMean: 4e-3, spikeProbability: 0.01, spikeMean: 80e-3),
        backward: DelayModel(base: 15e-3, jitterMean: 4e-3, spikeProbability: 0.01, spikeMean: 80e-3),
        loss: 0.01, localDrift: 10e-6,
        servers: [
            SimulatedServer(name: "ntp-1"), SimulatedServer(name: "ntp-2", clockError: 3.0),
            SimulatedServer(name: "ntp-3"), SimulatedServer(name: "ntp-4", clockError: -2.5),
            SimulatedServer(name: "ntp-5"),
        ])

    /// Thirty minutes online, six hours offline, thirty minutes online, with a fast-drifting clock.
    package static let offlineDrift = SimulationScenario(
        name: "offline-drift",
        provenance: """
            A phone that calibrates for 30 minutes, goes offline for 6 hours (a flight), then comes back \
            for 30 minutes. Oscillator 50 ppm: the tolerance of a cheap crystal over temperature \
            (±50 ppm parts are common). Wi-Fi path as in `wifi`; one own server polled every 16 s \
            while online; readings every 10 s.
            """,
        duration: 25200, readingInterval: 10, pollInterval: 16,
        forward: wifiDelay, backward: wifiDelay,
        loss: 0.005, localDrift: 50e-6, servers: [SimulatedServer(name: "wifi-server")],
        offline: [1800...23400])

    /// The user moves the device clock by an hour and a day, both ways.
    package static let tamper = SimulationScenario(
        name: "tamper",
        provenance: """
            Wi-Fi path as in `wifi`; the user sets the device clock +1 h, -1 h, +1 day and -1 day at \
            10, 20, 30 and 40 minutes (the classic trick to cheat a countdown or a daily reward). \
            Readings anchored on the monotonic clock must not notice; `wall-clock-latest` shows what \
            a wall-clock anchored implementation (the common hand-rolled approach) does. Oscillator 10 ppm.
            """,
        duration: 3600, pollInterval: 16,
        forward: wifiDelay, backward: wifiDelay,
        loss: 0.005, localDrift: 10e-6, servers: [SimulatedServer(name: "wifi-server")],
        wallClockJumps: [
            ClockStep(at: 600, by: 3600), ClockStep(at: 1200, by: -3600),
            ClockStep(at: 1800, by: 86400), ClockStep(at: 2400, by: -86400),
        ])

    /// The server's own clock is stepped by 2 s mid-run (an operator fixing it).
    package static let serverStep = SimulationScenario(
        name: "server-step",
        provenance: """
            Wi-Fi path as in `wifi`; at 1 h the server's clock is stepped by +2 s (an operator fixing \
            it, or a leap smear gone wrong). Server time is the truth, so the truth jumps too: every \
            strategy is wrong until its next sample (coverage below 1 is expected here); the question \
            is how fast each follows.
            """,
        duration: 7200, pollInterval: 16,
        forward: wifiDelay, backward: wifiDelay,
        loss: 0.005, localDrift: 10e-6,
        servers: [SimulatedServer(name: "wifi-server", steps: [ClockStep(at: 3600, by: 2)])])

    /// The server's time daemon slews its clock at up to 500 ppm for minutes.
    package static let serverSlew = SimulationScenario(
        name: "server-slew",
        provenance: """
            Wi-Fi path as in `wifi`; the server's own clock is corrected by its time daemon: at 20 min \
            it runs 500 ppm fast for 4 minutes (ntpd's largest slew rate, correcting 120 ms), at 50 min \
            300 ppm slow for 5 minutes (90 ms back), at 80 min 100 ppm fast for 10 minutes. Server time \
            is the truth, so the truth's rate changes under every client: bounds that assume a steady \
            server rate must drop their claim (leave `.calibrated`) once the samples show the change; \
            coverage counts only the readings a strategy vouched for. One server polled every 16 s; \
            oscillator 10 ppm.
            """,
        duration: 7200, pollInterval: 16,
        forward: wifiDelay, backward: wifiDelay,
        loss: 0.005, localDrift: 10e-6,
        servers: [
            SimulatedServer(
                name: "wifi-server",
                slews: [
                    ClockSlew(at: 1200, duration: 240, rate: 500e-6), ClockSlew(at: 3000, duration: 300, rate: -300e-6),
                    ClockSlew(at: 4800, duration: 600, rate: 100e-6),
                ])
        ])

    /// Your own HTTP server with `TimeSync-Time`, whose answers are 30 s off now and then.
    package static let httpGlitch = SimulationScenario(
        name: "http-glitch",
        provenance: """
            Wi-Fi path as in `wifi`; your own HTTP server with the `TimeSync-Time` header, measured \
            with three requests per poll (what an HTTP time source sends over one connection) every \
            16 s. Eight times, ten minutes apart, its answers are 30 s off for 10 s while its clock is \
            right (a backend behind the load balancer with a wrong clock, a proxy or a spoofer holding \
            the path for a moment): the truth does not follow them. One measurement's three samples \
            agree with each other, so only a rule that wants a later measurement keeps them out. \
            Oscillator 10 ppm.
            """,
        duration: 7200, pollInterval: 16,
        forward: wifiDelay, backward: wifiDelay,
        loss: 0.005, localDrift: 10e-6,
        servers: [SimulatedServer(name: "http-server", requestsPerPoll: 3, glitches: answerGlitches)])

    /// An HTTP server whose timestamp header, after an hour, comes from one stored response.
    package static let httpReplay = SimulationScenario(
        name: "http-replay",
        provenance: """
            Wi-Fi path as in `wifi`; an HTTP server with a precise timestamp header but no nonce (a \
            `Response-Timestamp` of your API, three requests per poll every 16 s) that after an \
            hour answers with one stored response, replayed (a cache that ignores `no-store`, or a \
            spoofer). With `TimeSync-Time` the nonce refuses such answers before they are samples; \
            without it only the estimator can. Its clock, the truth, runs on. Oscillator 10 ppm.
            """,
        duration: 7200, pollInterval: 16,
        forward: wifiDelay, backward: wifiDelay,
        loss: 0.005, localDrift: 10e-6,
        servers: [SimulatedServer(name: "http-server", requestsPerPoll: 3, frozenFrom: 3600)])

    /// Any HTTPS server's `Date`, 30 s off now and then.
    package static let dateGlitch = SimulationScenario(
        name: "date-glitch",
        provenance: """
            Wi-Fi path as in `wifi`; a server that tells the time only by its one-second `Date` \
            header, measured with eight requests 50 ms apart per poll (what a `Date` source sends) \
            every 16 s. Eight times, ten minutes apart, its answers are 30 s off for 10 s while its \
            clock is right (another backend, a cache, a proxy): the truth does not follow them. \
            Oscillator 10 ppm.
            """,
        duration: 7200, pollInterval: 16,
        forward: wifiDelay, backward: wifiDelay,
        loss: 0.005, localDrift: 10e-6,
        servers: [SimulatedServer(name: "date-server", scheme: .date, requestsPerPoll: 8, glitches: answerGlitches)])

    /// A `Date` server that, after an hour, replays one stored response for ever.
    package static let dateReplay = SimulationScenario(
        name: "date-replay",
        provenance: """
            Wi-Fi path as in `wifi`; a `Date`-only server (eight requests 50 ms apart per poll, every \
            16 s) that after an hour answers with one stored response, replayed: a `Date` that never \
            moves again, no nonce, no `Age` (a misconfigured cache or a spoofer replaying what it \
            saw). Its clock, the truth, runs on. A strategy should stop vouching for the time once \
            successive measurements contradict each other; one that follows the replay falls a \
            second further behind every second. Oscillator 10 ppm.
            """,
        duration: 7200, pollInterval: 16,
        forward: wifiDelay, backward: wifiDelay,
        loss: 0.005, localDrift: 10e-6,
        servers: [SimulatedServer(name: "date-server", scheme: .date, requestsPerPoll: 8, frozenFrom: 3600)])
}

import Testing
import TimeSync
import TimeSyncWire
import TimeSyncFixtures
import TimeSyncTesting

@Suite struct NTPClientRequestTests {
    static let wall = UnixTime(seconds: 1_790_000_000, nanoseconds: 250_000_000)
    static let t1 = MonotonicInstant(nanoseconds: 5_000_000_000)
    static let t4 = MonotonicInstant(nanoseconds: 5_020_000_000)

    static func request(seed: UInt64 = 1) -> NTPClientRequest {
        var generator = SeededGenerator(seed: seed)
        return NTPClientRequest(wallTime: wall, monotonicTime: t1, using: &generator)
    }

    /// A reply from a server 1.5 s ahead (root delay 2⁻⁶ s, root dispersion 2⁻⁷ s) whose request took 8 ms each way and 4 ms inside the server.
    static func reply(to request: NTPClientRequest) -> NTPPacket {
        let serverReceive = wall.advanced(by: .milliseconds(1508))
        return NTPPacket(
            version: 4, mode: .server, stratum: 2, poll: 6, precision: -20,
            rootDelay: NTPShortFormat(rawValue: 0x400), rootDispersion: NTPShortFormat(rawValue: 0x200),
            referenceID: NTPReferenceID(ipv4: 192, 0, 2, 1), referenceTimestamp: NTPTimestamp(wall),
            originTimestamp: request.transmitTimestamp, receiveTimestamp: NTPTimestamp(serverReceive),
            transmitTimestamp: NTPTimestamp(serverReceive.advanced(by: .milliseconds(4))))
    }

    @Test func requestCarriesWallSecondsAndARandomFraction() {
        let a = Self.request(seed: 1)
        let b = Self.request(seed: 2)
        #expect(a.transmitTimestamp.seconds == NTPTimestamp(Self.wall).seconds)
        #expect(a.transmitTimestamp.fraction != b.transmitTimestamp.fraction)
        #expect(a.packet.mode == .client)
        #expect(a.packet.version == 4)
        #expect(a.packet.encoded().count == 48)
        #expect(a.packet.transmitTimestamp == a.transmitTimestamp)
    }

    @Test func aGoodReplyBecomesASample() throws {
        var request = Self.request()
        let reply = try request.accept(Self.reply(to: request).encoded(), receivedAt: Self.t4)
        #expect(request.isAnswered)
        #expect(reply.requestSent == Self.t1)
        #expect(reply.responseReceived == Self.t4)
        #expect(reply.rootDistance == .microseconds(15_625))  // 2⁻⁶ s / 2 + 2⁻⁷ s
        let sample = try reply.sample(source: "test")
        // θ = server − monotonic; the server is 1.5 s ahead of the wall clock, which reads `wall` at t1.
        let trueTheta = Self.wall.nanoseconds + 1_500_000_000 - Self.t1.nanoseconds
        #expect(sample.offset.contains(trueTheta))
        #expect(sample.delay == 16_000_000)
        // [t3 − t4, t2 − t1] = θ + [−8 ms, +8 ms], widened by the root distance and 2⁻²⁰ s precision.
        #expect(sample.offset.lower == trueTheta - 8_000_000 - 15_625_000 - 954)
        #expect(sample.offset.upper == trueTheta + 8_000_000 + 15_625_000 + 954)
    }

    /// How each row breaks the good reply, and the error it must give.
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let expected: NTPReplyError
        let mutate: @Sendable (inout NTPPacket) -> Void
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "spoofed origin", expected: .originMismatch) { $0.originTimestamp.fraction &+= 1 },
        Case(name: "spoofed Kiss-o'-Death DENY", expected: .originMismatch) {
            $0.originTimestamp = .zero
            $0.stratum = 0
            $0.referenceID = .deny
        },
        Case(name: "client mode", expected: .notServerMode) { $0.mode = .client },
        Case(name: "symmetric active", expected: .notServerMode) { $0.mode = .symmetricActive },
        Case(name: "broadcast", expected: .notServerMode) { $0.mode = .broadcast },
        Case(name: "version 2", expected: .unsupportedVersion) { $0.version = 2 },
        Case(name: "version 5", expected: .unsupportedVersion) { $0.version = 5 },
        Case(name: "KoD RATE", expected: .kissOfDeath) {
            $0.stratum = 0
            $0.referenceID = .rate
            $0.leap = .unsynchronized
        },
        Case(name: "KoD DENY", expected: .kissOfDeath) {
            $0.stratum = 0
            $0.referenceID = .deny
        },
        Case(name: "leap indicator 3", expected: .unsynchronized) { $0.leap = .unsynchronized },
        Case(name: "stratum 16", expected: .unsynchronized) { $0.stratum = 16 },
        Case(name: "stratum 255", expected: .unsynchronized) { $0.stratum = 255 },
        Case(name: "zero receive timestamp", expected: .zeroTimestamp) { $0.receiveTimestamp = .zero },
        Case(name: "zero transmit timestamp", expected: .zeroTimestamp) { $0.transmitTimestamp = .zero },
        Case(name: "root distance 1.6 s", expected: .rootDistanceExceeded) {
            $0.rootDelay = NTPShortFormat(.seconds(1))
            $0.rootDispersion = NTPShortFormat(.milliseconds(1100))
        },
        Case(name: "transmit before receive", expected: .inconsistentTimestamps) {
            $0.transmitTimestamp = NTPTimestamp($0.receiveTimestamp.unixTime(near: NTPClientRequestTests.wall).advanced(by: .milliseconds(-1)))
        },
        Case(name: "server took longer than the round trip", expected: .inconsistentTimestamps) {
            $0.transmitTimestamp = NTPTimestamp($0.receiveTimestamp.unixTime(near: NTPClientRequestTests.wall).advanced(by: .milliseconds(30)))
        },
    ]

    @Test(arguments: cases)
    func badRepliesAreRejectedWithTheirError(_ row: Case) {
        var request = Self.request()
        var packet = Self.reply(to: request)
        row.mutate(&packet)
        expectThrows(row.expected) {
            try request.accept(packet.encoded(), receivedAt: Self.t4)
        }
    }

    @Test func kissCodeIsReported() {
        var request = Self.request()
        var packet = Self.reply(to: request)
        packet.stratum = 0
        packet.referenceID = .rate
        do {
            _ = try request.accept(packet, receivedAt: Self.t4)
            Issue.record("a kiss was accepted")
        } catch {
            #expect(error.code == .kissOfDeath)
            #expect(error.kissCode == .rate)
            #expect(error.kissCode?.kissAction == .reducePollRate)
        }
    }

    @Test func truncatedRepliesAreMalformed() {
        var request = Self.request()
        let bytes = Self.reply(to: request).encoded()
        do {
            _ = try request.accept(bytes.prefix(47), receivedAt: Self.t4)
            Issue.record("a truncated packet was accepted")
        } catch {
            #expect(error.code == .malformedPacket)
            #expect((error.underlying as? NTPPacketError)?.code == .truncated)
        }
        #expect(!request.isAnswered)
    }

    @Test func aSpoofedReplyDoesNotSpoilTheGenuineOne() throws {
        var request = Self.request()
        var spoofed = Self.reply(to: request)
        spoofed.originTimestamp.fraction ^= 0xFFFF
        expectThrows(NTPReplyError.originMismatch) { try request.accept(spoofed, receivedAt: Self.t4) }
        #expect(!request.isAnswered)
        _ = try request.accept(Self.reply(to: request), receivedAt: Self.t4)
    }

    @Test func duplicatesAreIgnored() throws {
        var request = Self.request()
        let bytes = Self.reply(to: request).encoded()
        _ = try request.accept(bytes, receivedAt: Self.t4)
        expectThrows(NTPReplyError.duplicate) { try request.accept(bytes, receivedAt: Self.t4) }
    }

    @Test func version3RepliesAreAccepted() throws {
        var request = Self.request()
        var packet = Self.reply(to: request)
        packet.version = 3
        _ = try request.accept(packet, receivedAt: Self.t4)
    }

    @Test func rootDistanceLimitIsConfigurable() throws {
        var request = Self.request()
        expectThrows(NTPReplyError.rootDistanceExceeded) {
            try request.accept(
                Self.reply(to: request), receivedAt: Self.t4,
                limits: NTPReplyLimits(maximumRootDistance: .milliseconds(9)))
        }
    }

    /// A second, different reply echoing our origin is a race between the server and a spoofer: it is
    /// a conflict whichever of the two came first, never a duplicate to drop in silence.
    @Test func aDifferentSecondReplyIsAConflictNotADuplicate() throws {
        var request = Self.request()
        let truth = Self.reply(to: request)
        var lie = truth
        lie.transmitTimestamp = NTPTimestamp(Self.wall.advanced(by: .seconds(1000)))
        lie.receiveTimestamp = lie.transmitTimestamp
        _ = try request.accept(lie.encoded(), receivedAt: Self.t4)
        expectThrows(NTPReplyError.conflictingReplies) { try request.accept(truth.encoded(), receivedAt: Self.t4) }
        // An exact copy of the first stays a duplicate.
        expectThrows(NTPReplyError.duplicate) { try request.accept(lie.encoded(), receivedAt: Self.t4) }
    }
}

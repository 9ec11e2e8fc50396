import Testing
import TimeSync
import TimeSyncHTTP
import TimeSyncWire

/// One HTTP measurement, on hand-given instants: the warm-up and the path it chooses, the `Date`
/// refinement's timing, the refusals that end it, the one deadline.
@Suite struct HTTPMeasurementTests {
    static let start = MonotonicInstant(nanoseconds: 2_000_000_000_000)

    /// What a server does with one request.
    enum Response {
        /// `TimeSync-Time` (exact, 1 ms each way).
        case timeHeader
        /// `Date` only.
        case date
        /// `429` with `Retry-After: 60`.
        case tooMany
        /// The connection failed.
        case lost
    }

    struct Sent {
        var source: Int
        var at: MonotonicInstant
        var preference: HTTPTimeScheme.Preference
        var deadline: Deadline
    }

    /// Runs `measurement` as a transport would against servers `theta` ahead of the monotonic clock,
    /// 1 ms each way (plus `delay(source)`), answering the n-th request as `respond(n)` says.
    static func drive(
        _ measurement: inout HTTPMeasurement, theta: Int64 = 37_123_456_789, delay: (Int) -> Duration = { _ in .zero },
        _ respond: (Int) -> Response
    ) throws -> (sent: [Sent], result: HTTPMeasurement.Result?, error: (any Error)?) {
        var now = start
        var sent: [Sent] = []
        for _ in 0..<100 {
            switch measurement.next(at: now) {
            case .done(let result):
                return (sent, result, nil)
            case .failed(let error):
                return (sent, nil, error)
            case .send(let source, let at, let preference, let deadline):
                #expect(at >= now, "a request is never planned for the past")
                #expect(deadline.instant > at)
                sent.append(Sent(source: source, at: at, preference: preference, deadline: deadline))
                let leg = Duration.milliseconds(1) + delay(source)
                let stamp = at.advanced(by: leg)
                now = stamp.advanced(by: leg)
                let response = respond(sent.count)
                switch response {
                case .timeHeader where preference != .dateOnly:
                    let sample = try OffsetSample.timestamp(
                        source: "s\(source)", serverTime: UnixTime(nanoseconds: stamp.nanoseconds + theta), resolution: .nanoseconds(1),
                        requestSent: at, responseReceived: now)
                    measurement.received(sample, hasTimeHeader: true)
                case .timeHeader, .date:
                    guard preference != .timeHeaderOnly else {
                        measurement.rejected(HTTPTimeError.noUsableSamples, hasTimeHeader: false)
                        continue
                    }
                    let second = (stamp.nanoseconds + theta) / 1_000_000_000 * 1_000_000_000
                    let sample = try OffsetSample.timestamp(
                        source: "s\(source)", serverTime: UnixTime(nanoseconds: second), resolution: HTTPDate.resolution,
                        requestSent: at, responseReceived: now)
                    measurement.received(sample, hasTimeHeader: response == .timeHeader)
                case .tooMany:
                    let refusal = try #require(
                        HTTPTimeError.retryLater(status: 429, headers: [(name: "Retry-After", value: "60")], wallNow: UnixTime(nanoseconds: 0)))
                    measurement.rejected(refusal, hasTimeHeader: false)
                case .lost:
                    measurement.failed(HTTPTimeError.timeout)
                }
            }
        }
        Issue.record("the measurement did not end")
        return (sent, nil, nil)
    }

    static func measurement(
        sources: Int = 1, samples: Int = 3, preference: HTTPTimeScheme.Preference = .preferTimeHeader, warmUp: Bool = true,
        deadline: Duration? = nil
    ) throws -> HTTPMeasurement {
        try HTTPMeasurement(
            .init(
                sources: (0..<sources).map { "s\($0)" }, samples: samples, preference: preference, warmUp: warmUp,
                requestTimeout: .seconds(2)),
            deadline: deadline.map { Deadline(after: $0, from: start) })
    }

    /// A server with `TimeSync-Time`: the opening request is discarded, `samples` follow by that
    /// header only.
    @Test func aTimeHeaderServerGetsSamplesOverTheWarmConnection() throws {
        var measurement = try Self.measurement()
        let run = try Self.drive(&measurement) { _ in .timeHeader }
        let result = try #require(run.result)
        #expect(result.scheme == .timeHeader && result.samples.count == 3 && result.requests == 4)
        #expect(run.sent.map(\.preference) == [.preferTimeHeader, .timeHeaderOnly, .timeHeaderOnly, .timeHeaderOnly])
        #expect(result.samples.allSatisfy { $0.offset.contains(37_123_456_789) })
    }

    /// A `Date`-only server: the opening response is the first sample, and the refinement times the
    /// rest across the server's second; the bounds end far below a second, and hold the truth.
    @Test func aDateServerIsRefinedFromTheOpeningResponse() throws {
        var measurement = try Self.measurement(samples: 8)
        let run = try Self.drive(&measurement) { _ in .date }
        let result = try #require(run.result)
        #expect(result.scheme == .date && result.requests <= 8)
        #expect(run.sent.dropFirst().allSatisfy { $0.preference == .dateOnly })
        var bounds = result.samples[0].offset
        for sample in result.samples.dropFirst() { bounds = try #require(bounds.intersection(sample.offset)) }
        #expect(bounds.contains(37_123_456_789))
        #expect(bounds.width < 100_000_000, "the refinement is far below a second: \(bounds.width) ns")
    }

    /// A server that answers `429` gets no further request, whatever the phase.
    @Test(arguments: [1, 2, 3])
    func aServerAskingToBackOffGetsNoFurtherRequest(_ at: Int) throws {
        var measurement = try Self.measurement(samples: 4)
        let run = try Self.drive(&measurement) { $0 == at ? .tooMany : .date }
        #expect(run.sent.count == at)
        #expect((run.error as? HTTPTimeError)?.code == .retryLater)
    }

    /// The opening request's transport failure ends the measurement (the server cannot be
    /// reached); a later one counts, and the measurement goes on.
    @Test func onlyTheOpeningRequestsFailureEndsIt() throws {
        var opening = try Self.measurement()
        let first = try Self.drive(&opening) { _ in .lost }
        #expect(first.sent.count == 1 && (first.error as? HTTPTimeError)?.code == .timeout)

        var later = try Self.measurement()
        let run = try Self.drive(&later) { $0 == 2 ? .lost : .timeHeader }
        let result = try #require(run.result)
        #expect(result.samples.count == 2 && result.rejected == 1 && result.requests == 4)
    }

    /// With a deadline, no request is sent that could not finish by it, and every request's own
    /// deadline is within it; what was taken by then is the answer.
    @Test func theDeadlineBoundsEveryRequestAndTheMeasurement() throws {
        var measurement = try Self.measurement(samples: 8, deadline: .milliseconds(1500))
        let run = try Self.drive(&measurement) { _ in .date }
        let result = try #require(run.result)
        let deadline = try #require(measurement.deadline)
        #expect(run.sent.allSatisfy { $0.deadline <= deadline && $0.at < deadline.instant })
        #expect(result.requests == run.sent.count && result.requests < 8, "the refinement's later requests did not fit")
    }

    /// Several `Date` servers, no warm-up (the calibrator): each is probed, and the one with the
    /// lowest round trip is refined.
    @Test func severalServersAreProbedAndTheFastestRefined() throws {
        var measurement = try HTTPMeasurement(
            .init(sources: ["slow", "fast"], samples: 10, preference: .dateOnly, warmUp: false, dateRequests: 10, requestTimeout: .seconds(2)))
        let run = try Self.drive(&measurement, delay: { $0 == 0 ? .milliseconds(40) : .zero }) { _ in .date }
        let result = try #require(run.result)
        #expect(result.source == 1)
        #expect(Set(run.sent.prefix(4).map(\.source)) == [0, 1], "both are probed first")
    }

    @Test func aWarmUpIsForOneSource() {
        #expect(throws: HTTPTimeError.self) {
            try HTTPMeasurement(.init(sources: ["a", "b"], samples: 2, preference: .dateOnly, warmUp: true, requestTimeout: .seconds(1)))
        }
    }
}

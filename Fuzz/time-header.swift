import TimeSync

// Built in one module with Sources/TimeSyncHTTP/HTTPTimeHeader.swift and HTTPTimeError.swift (the
// rest of TimeSyncHTTP needs AsyncHTTPClient), so the header's internal serializer is visible here.

/// The `TimeSync-Time` response header.
///
/// Input: the field value's bytes, optionally followed by a NUL and the local send and receive
/// instants t1 and t4 (``FuzzInput/nanoseconds(near:)`` each); without them, a 1 ms round trip.
/// - A header that parses writes itself (``HTTPTimeHeader/fieldValue``) byte for byte as
///   swift-http-structured-headers' serializer does, and that text parses back to the same header,
///   whenever its members fit RFC 9651 integers.
/// - Its t2 and t3 with t1 and t4 make an exchange sample, as ``HTTPTimeObserver`` does, which an
///   estimator must take; thrown errors are fine, traps are not.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTimeHeader(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size).bytes
    let value: ArraySlice<UInt8>
    var requestSent = MonotonicInstant(nanoseconds: 1_000_000_000_000)
    var responseReceived = requestSent.advanced(by: .milliseconds(1))
    if let nul = input.firstIndex(of: 0) {
        value = input[..<nul]
        var parameters = FuzzInput(Array(input[(nul + 1)...]))
        requestSent = parameters.monotonic(near: requestSent)
        responseReceived = parameters.monotonic(near: requestSent)
    } else {
        value = input[...]
    }

    let header: HTTPTimeHeader
    do {
        header = try HTTPTimeHeader(parsing: String(decoding: value, as: UTF8.self))
    } catch {
        return 0
    }
    checkSerialization(header)

    let sample: OffsetSample
    do {
        sample = try OffsetSample.exchange(
            source: "http.example", requestSent: requestSent, serverReceive: header.serverReceive,
            serverTransmit: header.serverTransmit, responseReceived: responseReceived,
            serverUncertainty: header.uncertainty ?? .zero)
    } catch {
        return 0
    }
    check(sample.offset.lower <= sample.offset.upper, "empty sample bounds")
    checkOneSampleCalibrates(sample)
    return 0
}

/// The hand-written field value matches the library serializer's and parses back, when every member
/// fits an RFC 9651 integer (t3 more than 11 days after t2 does not: the writer clamps it).
private func checkSerialization(_ header: HTTPTimeHeader) {
    let fieldValue = header.fieldValue
    let second = header.serverReceive.seconds
    let (base, overflow) = second.multipliedReportingOverflow(by: 1_000_000_000)
    guard !overflow else { return }
    let (transmit, o2) = header.serverTransmit.nanoseconds.subtractingReportingOverflow(base)
    guard !o2, abs(transmit) <= HTTPTimeHeader.integerLimit, abs(second) <= HTTPTimeHeader.integerLimit,
        (header.uncertainty ?? .zero) <= .nanoseconds(HTTPTimeHeader.integerLimit)
    else { return }
    check(fieldValue == header.serializedFieldValue, "\(fieldValue) ≠ serializer's \(header.serializedFieldValue)")
    var expected = header
    if let nonce = header.nonce, !HTTPTimeNonce.isValid(nonce) { expected.nonce = nil }
    let reparsed = try? HTTPTimeHeader(parsing: fieldValue)
    check(reparsed == expected, "\(fieldValue) parses to \(String(describing: reparsed)), not \(expected)")
}

import TimeSync
import TimeSyncServerSupport
import TimeSyncWire

/// NTS-KE record streams (what a key-exchange server or client reads off TLS) and the NTS fields of
/// NTP requests (what a server reads off UDP).
///
/// Input: a first byte choosing how the rest is cut into pieces (TLS delivers records in any split),
/// then the stream.
/// - The decoder never traps; fed in pieces it reads exactly what it reads fed whole, or fails the same.
/// - What it reads re-encodes to the bytes it consumed.
/// - A complete message parses as a request and as a response, or throws a typed `NTSKEError`; a
///   response that parses has 1–8 cookies of 1–224 bytes, NTPv4 and AES-SIV-CMAC-256.
/// - The same bytes as an NTP packet: NTS fields parse or throw, never trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNTSKE(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let piece = Int(input.byte() % 32) + 1
    let stream = input.rest()
    var whole = NTSKERecordDecoder(maximumMessageSize: 4096)
    let wholeOutcome = Result { () throws(NTSKEError) in try whole.append(stream) }
    var split = NTSKERecordDecoder(maximumMessageSize: 4096)
    var splitError: NTSKEError?
    var start = 0
    while start < stream.count, splitError == nil {
        let end = min(stream.count, start + piece)
        do throws(NTSKEError) {
            try split.append(stream[start..<end])
        } catch {
            splitError = error
        }
        start = end
    }
    switch wholeOutcome {
    case .success:
        check(splitError == nil, "whole stream read, the split one failed: \(String(describing: splitError))")
        check(split.records == whole.records && split.isComplete == whole.isComplete, "split and whole reads differ")
        if whole.isComplete {
            // The stream is the records, then an End of Message (its critical bit as sent).
            let records = NTSKERecord.encode(whole.records)
            check(Array(stream.prefix(records.count)) == records, "records do not re-encode to the stream")
            check(stream.count == records.count + 4 && stream[records.count] & 0x7F == 0 && stream[records.count + 1] == 0,
                "the stream does not end with End of Message")
        }
    case .failure(let error):
        check(splitError != nil || error.code == .messageTooLarge || error.code == .malformedMessage, "whole read failed (\(error)), split did not")
    }
    if whole.isComplete {
        if let request = try? NTSKERequest(records: whole.records) {
            _ = NTSKEResponse.refusal(of: request)
        }
        do {
            let response = try NTSKEResponse(records: whole.records)
            check((1...8).contains(response.cookies.count), "a response with \(response.cookies.count) cookies")
            check(response.cookies.allSatisfy { (1...NTSKEResponse.maximumCookieSize).contains($0.count) }, "a cookie out of size")
            check(response.algorithm == NTSAEADAlgorithm.aesSIVCMAC256, "algorithm \(response.algorithm) accepted")
            _ = NTSKEResponse(algorithm: response.algorithm, cookies: response.cookies, server: response.server, port: response.port).records
        } catch {
            check(!error.description.isEmpty, "an error without a message")
        }
    }
    stream.withUnsafeBytes { bytes in
        let checked = try? NTPPacket.decodeHeader(bytes)
        check((checked != nil) == ((try? NTPPacket(decoding: stream)) != nil), "the header decoder and the full decoder disagree")
        guard checked != nil, let request = try? NTSRequestLayout(bytes) else { return }
        check(request.uniqueIdentifierField.count >= 36 && request.placeholders < 8, "NTS request fields out of bounds")
        for range in [request.uniqueIdentifierField, request.cookie, request.nonce, request.ciphertext] {
            check(range.lowerBound >= 48 && range.upperBound <= bytes.count, "an NTS field outside the datagram")
        }
        check(request.authenticatorStart < request.nonce.lowerBound && request.nonce.upperBound <= request.ciphertext.lowerBound,
              "the Authenticator's parts out of order")
    }
    return 0
}

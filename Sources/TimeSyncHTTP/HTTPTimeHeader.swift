import RawStructuredFieldValues
import TimeSync

/// The `TimeSync-Time` response header (wire format version 1, `docs/http-time-header.md`): when the
/// server received the request (t2) and when it sent the response (t3), with nanosecond resolution,
/// as an RFC 9651 structured-field dictionary.
///
/// ```
/// TimeSync-Time: v=1, s=1763701484, t2=123456789, t3=123987654, n="q8Zt1v0cYx3LmR2a"
/// ```
/// - `v`: the version, `1`.
/// - `s`: whole seconds since the Unix epoch; `t2` and `t3` are nanoseconds after `s` (RFC 9651
///   integers hold 15 digits, too few for nanoseconds since 1970 in one number).
/// - `n` (optional): the nonce of the request's `TimeSync-Nonce` header, echoed.
/// - `u` (optional): how far the server's own clock may be off, in nanoseconds.
///
/// Unknown members and parameters are ignored, so later versions can add members.
package struct HTTPTimeHeader: Sendable, Hashable {
    /// The response header's name.
    package static let name = "TimeSync-Time"
    /// The request header carrying the client's nonce (an RFC 9651 string).
    package static let nonceName = "TimeSync-Nonce"
    /// The wire-format version this library writes and reads.
    package static let currentVersion: Int64 = 1
    /// The longest nonce a server echoes, in characters.
    package static let maximumNonceLength = 64

    /// t2: the server's clock when the request arrived.
    package var serverReceive: UnixTime
    /// t3: the server's clock when the response left (as late as practical).
    package var serverTransmit: UnixTime
    /// The echoed request nonce, if the request carried one.
    package var nonce: String?
    /// How far the server's stamps may be off its reference (its own sync error), if it says.
    package var uncertainty: Duration?

    /// Creates a header value.
    /// - Parameters:
    ///   - serverReceive: t2, the server's clock when the request arrived.
    ///   - serverTransmit: t3, the server's clock when the response left.
    ///   - nonce: The request's nonce to echo, if any.
    ///   - uncertainty: The server's own clock error bound, if known.
    package init(serverReceive: UnixTime, serverTransmit: UnixTime, nonce: String? = nil, uncertainty: Duration? = nil) {
        self.serverReceive = serverReceive
        self.serverTransmit = serverTransmit
        self.nonce = nonce
        self.uncertainty = uncertainty
    }

    /// The field value.
    ///
    /// A nonce that is not a valid RFC 9651 string of at most ``maximumNonceLength`` characters, and
    /// a negative uncertainty, are left out.
    package var fieldValue: String {
        // Written byte by byte into the string's own storage: this runs on every stamped response, and
        // the structured-field serializer costs ~1.7 µs of allocations, string interpolation several
        // temporaries. The output is byte-identical to ``serializedFieldValue`` (the tests check it):
        // integers in decimal, and the nonce — printable ASCII, validated — quoted with `\` and `"`
        // escaped, exactly as RFC 9651 §4.1.6 writes strings.
        let (second, receive, transmit) = members
        let nonce = self.nonce.flatMap { HTTPTimeNonce.isValid($0) ? $0 : nil }
        let uncertainty = self.uncertainty.flatMap { $0 >= .zero ? min($0.nanosecondsClamped, Self.integerLimit) : nil }
        // Three members of at most 20 characters and their names, then the optional two.
        let capacity = 96 + (nonce.map { 6 + 2 * $0.utf8.count } ?? 0) + (uncertainty == nil ? 0 : 25)
        return String(unsafeUninitializedCapacity: capacity) { buffer in
            var writer = ASCIIWriter(buffer: buffer)
            writer.append("v=")
            writer.append(Self.currentVersion)
            writer.append(", s=")
            writer.append(second)
            writer.append(", t2=")
            writer.append(receive)
            writer.append(", t3=")
            writer.append(transmit)
            if let nonce {
                writer.append(", n=\"")
                for byte in nonce.utf8 {
                    if byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "\"") { writer.append(byte: UInt8(ascii: "\\")) }
                    writer.append(byte: byte)
                }
                writer.append(byte: UInt8(ascii: "\""))
            }
            if let uncertainty {
                writer.append(", u=")
                writer.append(uncertainty)
            }
            return writer.count
        }
    }

    /// `s`, `t2` and `t3` as written on the wire.
    private var members: (second: Int64, receive: Int64, transmit: Int64) {
        let second = serverReceive.seconds
        let base = second.multipliedReportingOverflow(by: 1_000_000_000).partialValue
        // t3 − s stays within an RFC 9651 integer unless the server held the request for 11 days.
        return (second, serverReceive.nanoseconds &- base, min(serverTransmit.nanoseconds &- base, Self.integerLimit))
    }

    /// The same field value written by swift-http-structured-headers' serializer: the reference
    /// ``fieldValue`` must match byte for byte.
    var serializedFieldValue: String {
        let (second, receive, transmit) = members
        var members = OrderedMap<String, ItemOrInnerList>()
        func item(_ value: RFC9651BareItem) -> ItemOrInnerList { .item(Item(bareItem: value, parameters: OrderedMap())) }
        members["v"] = item(.integer(Self.currentVersion))
        members["s"] = item(.integer(second))
        members["t2"] = item(.integer(receive))
        members["t3"] = item(.integer(transmit))
        if let nonce, HTTPTimeNonce.isValid(nonce) { members["n"] = item(.string(nonce)) }
        if let uncertainty, uncertainty >= .zero {
            members["u"] = item(.integer(min(uncertainty.nanosecondsClamped, Self.integerLimit)))
        }
        var serializer = StructuredFieldValueSerializer()
        // Every member is a bounded integer or a validated string: serialisation cannot fail.
        let bytes = (try? serializer.writeDictionaryFieldValue(members)) ?? []
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Parses a field value (several field lines joined with `, `, as RFC 9110 §5.3 combines them).
    /// - Parameter fieldValue: The header's value.
    /// - Throws: `HTTPTimeError.malformedTimeHeader` for an invalid structured field or a missing,
    ///   mistyped or out-of-range member; `HTTPTimeError.unsupportedVersion` for a version other
    ///   than 1.
    package init(parsing fieldValue: some StringProtocol) throws(HTTPTimeError) {
        let members: OrderedMap<String, ItemOrInnerList>
        do {
            var parser = StructuredFieldValueParser(Array(fieldValue.utf8))
            members = try parser.parseDictionaryFieldValue()
        } catch {
            throw HTTPTimeError(.malformedTimeHeader, detail: "not an RFC 9651 dictionary")
        }
        func integer(_ key: String) throws(HTTPTimeError) -> Int64? {
            switch members[key] {
            case .none: return nil
            case .item(let item):
                guard case .integer(let value) = item.rfc9651BareItem else {
                    throw HTTPTimeError(.malformedTimeHeader, detail: "member \(key) is not an integer")
                }
                return value
            case .innerList: throw HTTPTimeError(.malformedTimeHeader, detail: "member \(key) is a list")
            }
        }
        func required(_ key: String) throws(HTTPTimeError) -> Int64 {
            guard let value = try integer(key) else {
                throw HTTPTimeError(.malformedTimeHeader, detail: "member \(key) is missing")
            }
            return value
        }
        guard let version = try integer("v") else {
            throw HTTPTimeError(.malformedTimeHeader, detail: "member v is missing")
        }
        guard version == Self.currentVersion else {
            throw HTTPTimeError(.unsupportedVersion, detail: "v=\(version)")
        }
        let second = try required("s")
        let receive = try required("t2")
        let transmit = try required("t3")
        let (base, overflow) = second.multipliedReportingOverflow(by: 1_000_000_000)
        let (t2, o2) = base.addingReportingOverflow(receive)
        let (t3, o3) = base.addingReportingOverflow(transmit)
        guard !overflow, !o2, !o3 else { throw HTTPTimeError(.malformedTimeHeader, detail: "time out of range") }
        var nonce: String?
        switch members["n"] {
        case .none: nonce = nil
        case .item(let item):
            guard case .string(let value) = item.rfc9651BareItem else {
                throw HTTPTimeError(.malformedTimeHeader, detail: "member n is not a string")
            }
            nonce = value
        case .innerList: throw HTTPTimeError(.malformedTimeHeader, detail: "member n is a list")
        }
        var uncertainty: Duration?
        if let u = try integer("u") {
            guard u >= 0 else { throw HTTPTimeError(.malformedTimeHeader, detail: "member u is negative") }
            uncertainty = .nanoseconds(u)
        }
        self.init(
            serverReceive: UnixTime(nanoseconds: t2), serverTransmit: UnixTime(nanoseconds: t3),
            nonce: nonce, uncertainty: uncertainty)
    }

    static let integerLimit: Int64 = 999_999_999_999_999
}

/// Writes ASCII into a buffer sized by the caller.
private struct ASCIIWriter {
    let buffer: UnsafeMutableBufferPointer<UInt8>
    var count = 0

    mutating func append(byte: UInt8) {
        buffer[count] = byte
        count += 1
    }

    mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { for byte in $0 { append(byte: byte) } }
    }

    /// An integer in decimal, as RFC 9651 writes it (a leading `-` when negative).
    mutating func append(_ value: Int64) {
        if value < 0 { append(byte: UInt8(ascii: "-")) }
        // Count the digits first, then write them from the last one back.
        var magnitude = value.magnitude
        var length = 0
        var probe = magnitude
        repeat {
            length += 1
            probe /= 10
        } while probe > 0
        var index = count + length
        count = index
        repeat {
            index -= 1
            buffer[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
            magnitude /= 10
        } while magnitude > 0
    }
}

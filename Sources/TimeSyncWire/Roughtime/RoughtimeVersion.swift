/// A Roughtime protocol version: the wire format, hash, signature contexts and time unit it implies.
///
/// Clients offer versions in a request; the server answers in one of them, and the reply says which.
public enum RoughtimeVersion: Sendable, Hashable, CaseIterable, Comparable, CustomStringConvertible {
    /// Version 1 (`0x00000001`), RFC 10049.
    case rfc
    /// `0x8000000c`, the number drafts 12 to 19 share (with the TYPE tag from draft 14 on): the
    /// format of version 1 under an experimental number, what most servers speak today.
    case draft14
    /// `0x8000000b`, draft 11 (Cloudflare's servers): the nonce is the Merkle leaf, VER outside SREP.
    case draft11
    /// `0x80000008`, draft 8: draft 11 without the SRV tag.
    case draft08
    /// Google's original protocol: no framing, 64-byte nonces, full SHA-512, microseconds.
    case google

    /// The versions, most preferred first.
    public static var allCases: [RoughtimeVersion] { [.rfc, .draft14, .draft11, .draft08, .google] }

    /// What a client offers unless told otherwise: version 1, `0x8000000c` and `0x8000000b`.
    public static let defaultOffer: [RoughtimeVersion] = [.rfc, .draft14, .draft11]

    /// What the server answers: every framed version.
    public static let served: [RoughtimeVersion] = [.rfc, .draft14, .draft11, .draft08]

    /// Preference order: a version is "less" when preferred (version 1 first).
    public static func < (lhs: RoughtimeVersion, rhs: RoughtimeVersion) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    /// The number in VER and VERS; `nil` for Google's protocol, which has none.
    public var wireValue: UInt32? {
        switch self {
        case .rfc: 1
        case .draft14: 0x8000_000c
        case .draft11: 0x8000_000b
        case .draft08: 0x8000_0008
        case .google: nil
        }
    }

    /// The version with this number, if this side speaks it.
    public init?(wireValue: UInt32) {
        guard let version = Self.allCases.first(where: { $0.wireValue == wireValue }) else { return nil }
        self = version
    }

    /// A version from its name (`1`, `rfc`, `google`) or its number (`0x8000000c`).
    public init?(name: String) {
        switch name.lowercased() {
        case "1", "rfc", "0x1", "0x00000001": self = .rfc
        case "google": self = .google
        default:
            let digits = name.lowercased().hasPrefix("0x") ? String(name.dropFirst(2)) : name
            guard let value = UInt32(digits, radix: 16), let version = RoughtimeVersion(wireValue: value) else { return nil }
            self = version
        }
    }

    public var description: String {
        switch self {
        case .rfc: "1"
        case .google: "google"
        default: "0x" + String(wireValue!, radix: 16)
        }
    }

    /// Whether packets carry the `ROUGHTIM` header.
    public var isFramed: Bool { self != .google }
    /// The nonce's length in bytes.
    public var nonceLength: Int { self == .google ? 64 : 32 }
    /// The length of the Merkle tree's hashes: SHA-512, truncated to 32 bytes but in Google's protocol.
    public var hashLength: Int { self == .google ? 64 : 32 }
    /// Whether the Merkle leaf is the whole request packet (and not only its nonce).
    public var leafIsWholeRequest: Bool { self == .rfc || self == .draft14 }
    /// Whether messages carry TYPE and SREP carries VER and VERS.
    public var signsVersion: Bool { self == .rfc || self == .draft14 }
    /// Whether a request may name the server's key (SRV).
    public var hasServerTag: Bool { self == .rfc || self == .draft14 || self == .draft11 }
    /// Nanoseconds per unit of MIDP and RADI: microseconds in Google's protocol, seconds since.
    public var nanosecondsPerUnit: Int64 { self == .google ? 1_000 : 1_000_000_000 }
    /// The padding tag of requests.
    var paddingTag: RoughtimeTag { self == .google ? .googlePadding : .padding }

    /// What the long-term key signs before the delegation (DELE), NUL-terminated.
    public var delegationContext: [UInt8] {
        Array((leafIsWholeRequest ? "RoughTime v1 delegation signature" : "RoughTime v1 delegation signature--").utf8) + [0]
    }

    /// What the delegated key signs before SREP, NUL-terminated; the same in every version.
    public static let responseContext: [UInt8] = Array("RoughTime v1 response signature".utf8) + [0]
}

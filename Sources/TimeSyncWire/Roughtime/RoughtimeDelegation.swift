import Crypto

/// A server's online key and the certificate its long-term key signed for it: the long-term key
/// stays offline (or at least out of the request path), the online key signs replies within its
/// validity window.
public struct RoughtimeDelegation: Sendable {
    /// The online key's public half (DELE's PUBK).
    public let publicKey: [UInt8]
    /// The window, in seconds since 1970, in which the online key's replies are valid (MINT…MAXT).
    public let validity: ClosedRange<UInt64>
    package let signingKey: Curve25519.Signing.PrivateKey
    /// CERT as sent in version 1 and `0x8000000c`, and as sent in the older drafts (their delegation
    /// contexts differ).
    let certificate: [UInt8]
    let legacyCertificate: [UInt8]

    /// Delegates a fresh online key.
    /// - Parameters:
    ///   - longTermKey: The server's long-term key; it signs the delegation and nothing else.
    ///   - validity: MINT…MAXT in seconds since 1970.
    ///   - onlineKey: The key to delegate (a new random one by default).
    public init(longTermKey: Curve25519.Signing.PrivateKey, validity: ClosedRange<UInt64>, onlineKey: Curve25519.Signing.PrivateKey = .init()) throws {
        signingKey = onlineKey
        publicKey = Array(onlineKey.publicKey.rawRepresentation)
        self.validity = validity
        let delegation = RoughtimeMessage.encode([
            (.publicKey, publicKey),
            (.minimumTime, RoughtimeMessage.uint64Bytes(validity.lowerBound)),
            (.maximumTime, RoughtimeMessage.uint64Bytes(validity.upperBound)),
        ])
        func signedCertificate(_ version: RoughtimeVersion) throws -> [UInt8] {
            let signature = try longTermKey.signature(for: version.delegationContext + delegation)
            return RoughtimeMessage.encode([(.signature, Array(signature)), (.delegation, delegation)])
        }
        certificate = try signedCertificate(.rfc)
        legacyCertificate = try signedCertificate(.draft11)
    }

    /// The CERT a reply in `version` carries.
    package func certificate(for version: RoughtimeVersion) -> [UInt8] {
        version.leafIsWholeRequest ? certificate : legacyCertificate
    }
}

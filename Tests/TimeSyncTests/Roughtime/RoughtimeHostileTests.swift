import Crypto
import Testing
import TimeSync
import TimeSyncWire
import TimeSyncFixtures
import TimeSyncTesting

/// Replies a liar or a broken server could send: each is a typed error, never a verified time.
@Suite struct RoughtimeHostileTests {
    static let longTermKey = try! Curve25519.Signing.PrivateKey(rawRepresentation: [UInt8](repeating: 3, count: 32))
    static let onlineKey = try! Curve25519.Signing.PrivateKey(rawRepresentation: [UInt8](repeating: 4, count: 32))
    static let publicKey = Array(longTermKey.publicKey.rawRepresentation)
    static let request: RoughtimeRequest = {
        var generator = SeededGenerator(seed: 21)
        return RoughtimeRequest(versions: [.rfc], nonce: generator.bytes(32), serverKey: publicKey)
    }()

    /// A reply built field by field, each one overridable, signed as a server would sign it.
    static func forge(
        midpoint: UInt64 = 1_790_000_000, validity: ClosedRange<UInt64> = 1_789_000_000...1_791_000_000,
        path: [UInt8] = [], index: UInt32 = 0, signWith: Curve25519.Signing.PrivateKey = onlineKey,
        edit: (inout [(RoughtimeTag, [UInt8])]) -> Void = { _ in }
    ) throws -> [UInt8] {
        let delegation = RoughtimeMessage.encode([
            (.publicKey, Array(onlineKey.publicKey.rawRepresentation)),
            (.minimumTime, RoughtimeMessage.uint64Bytes(validity.lowerBound)),
            (.maximumTime, RoughtimeMessage.uint64Bytes(validity.upperBound)),
        ])
        let certificate = RoughtimeMessage.encode([
            (.signature, Array(try longTermKey.signature(for: RoughtimeVersion.rfc.delegationContext + delegation))), (.delegation, delegation),
        ])
        var root = RoughtimeMerkle.leafHash(request.packet[...], length: 32)
        for level in 0..<(path.count / 32) {
            let sibling = Array(path[(level * 32)..<((level + 1) * 32)])
            root = (index >> UInt32(level)) & 1 == 0 ? RoughtimeMerkle.nodeHash(root, sibling) : RoughtimeMerkle.nodeHash(sibling, root)
        }
        let signed = RoughtimeMessage.encode([
            (.version, RoughtimeMessage.uint32Bytes(1)), (.versions, RoughtimeMessage.uint32Bytes(1)),
            (.radius, RoughtimeMessage.uint32Bytes(3)), (.midpoint, RoughtimeMessage.uint64Bytes(midpoint)), (.root, root),
        ])
        var fields: [(RoughtimeTag, [UInt8])] = [
            (.signature, Array(try signWith.signature(for: RoughtimeVersion.responseContext + signed))),
            (.nonce, request.nonce), (.type, RoughtimeMessage.uint32Bytes(1)), (.path, path),
            (.signedResponse, signed), (.certificate, certificate), (.index, RoughtimeMessage.uint32Bytes(index)),
        ]
        edit(&fields)
        return RoughtimePacket.frame(RoughtimeMessage.encode(fields))
    }

    static func verify(_ packet: [UInt8]) throws -> RoughtimeResponse {
        try RoughtimeResponse.verify(packet, request: request, publicKey: publicKey)
    }

    @Test func theForgerMakesValidRepliesWhenItChangesNothing() throws {
        #expect(try Self.verify(try Self.forge()).midpointValue == 1_790_000_000)
        let sibling = [UInt8](repeating: 0xaa, count: 32) + [UInt8](repeating: 0xbb, count: 32)
        #expect(try Self.verify(try Self.forge(path: sibling, index: 2)).midpointValue == 1_790_000_000)
    }

    @Test func aSignatureByAnotherKeyIsRefused() throws {
        expectThrows(RoughtimeError.badResponseSignature) { try Self.verify(try Self.forge(signWith: Self.longTermKey)) }
        var packet = try Self.forge()
        // The top-level SIG is the message's first value: right after the 12-byte frame and the header.
        let message = try RoughtimeMessage(decoding: try RoughtimePacket.unframe(packet[...]))
        packet[try message.value(.signature).startIndex] ^= 0x01
        expectThrows(RoughtimeError.badResponseSignature) { try Self.verify(packet) }
    }

    @Test func aWrongMerklePathIsRefused() throws {
        let path = [UInt8](repeating: 0xaa, count: 32)
        var packet = try Self.forge(path: path, index: 1)
        let message = try RoughtimeMessage(decoding: try RoughtimePacket.unframe(packet[...]))
        packet[try message.value(.path).startIndex] ^= 0x80
        expectThrows(RoughtimeError.merkleMismatch) { try Self.verify(packet) }
        // The right path under the wrong index; an index with bits past the path.
        expectThrows(RoughtimeError.merkleMismatch) { try Self.verify(try Self.forge(path: path, index: 1) { $0[6].1 = RoughtimeMessage.uint32Bytes(0) }) }
        expectThrows(RoughtimeError.merkleMismatch) { try Self.verify(try Self.forge(path: path, index: 1) { $0[6].1 = RoughtimeMessage.uint32Bytes(3) }) }
        expectThrows(RoughtimeError.badTagLength) { try Self.verify(try Self.forge { $0[3].1 = [UInt8](repeating: 1, count: 33 * 32) }) }
    }

    @Test func aMidpointOutsideTheDelegationIsRefused() throws {
        expectThrows(RoughtimeError.midpointOutsideDelegation) { try Self.verify(try Self.forge(midpoint: 1_791_000_001)) }
        expectThrows(RoughtimeError.midpointOutsideDelegation) { try Self.verify(try Self.forge(midpoint: 1_788_999_999)) }
    }

    @Test func wrongTypeOrTagLengthsAreRefused() throws {
        expectThrows(RoughtimeError.wrongType) { try Self.verify(try Self.forge { $0[2].1 = RoughtimeMessage.uint32Bytes(0) }) }
        expectThrows(RoughtimeError.missingTag) { try Self.verify(try Self.forge { $0.remove(at: 2) }) }
        expectThrows(RoughtimeError.badTagLength) { try Self.verify(try Self.forge { $0[1].1 += [0, 0, 0, 0] }) }
        expectThrows(RoughtimeError.badTagLength) { try Self.verify(try Self.forge { $0[0].1.removeLast(4) }) }
    }

    @Test func truncatedRepliesAreRefused() throws {
        let packet = try Self.forge()
        for length in [0, 4, 11, 12, 16, 100, packet.count - 4] {
            #expect(throws: RoughtimeError.self) { try Self.verify(Array(packet.prefix(length))) }
        }
        // A frame that announces what is there, but a message cut inside its values.
        let message = Array(try RoughtimePacket.unframe(packet[...]).prefix(200))
        expectThrows(RoughtimeError.malformedMessage) { try Self.verify(RoughtimePacket.frame(message)) }
        expectThrows(RoughtimeError.badFraming) { try Self.verify(Array(packet.dropLast(4))) }
    }

    /// Byte surgery on the header: the tag list and the offsets.
    @Test func duplicateUnsortedOrOutOfRangeTagsAreRefused() throws {
        let packet = try Self.forge()
        let count = 7
        let tagsStart = 12 + 4 + 4 * (count - 1)
        func tagBytes(_ index: Int) -> ArraySlice<UInt8> { packet[(tagsStart + 4 * index)..<(tagsStart + 4 * index + 4)] }
        var duplicate = packet
        duplicate.replaceSubrange((tagsStart + 4)..<(tagsStart + 8), with: tagBytes(0))
        expectThrows(RoughtimeError.unsortedTags) { try Self.verify(duplicate) }
        var unsorted = packet
        unsorted.replaceSubrange((tagsStart)..<(tagsStart + 8), with: tagBytes(1) + tagBytes(0))
        expectThrows(RoughtimeError.unsortedTags) { try Self.verify(unsorted) }
        var outside = packet
        outside.replaceSubrange(16..<20, with: RoughtimeMessage.uint32Bytes(1 << 20))
        expectThrows(RoughtimeError.malformedMessage) { try Self.verify(outside) }
        var misaligned = packet
        misaligned.replaceSubrange(16..<20, with: RoughtimeMessage.uint32Bytes(62))
        expectThrows(RoughtimeError.malformedMessage) { try Self.verify(misaligned) }
        var decreasing = packet
        decreasing.replaceSubrange(20..<24, with: RoughtimeMessage.uint32Bytes(0))
        expectThrows(RoughtimeError.malformedMessage) { try Self.verify(decreasing) }
        var oversize = packet
        oversize.replaceSubrange(12..<16, with: RoughtimeMessage.uint32Bytes(1_000_000))
        expectThrows(RoughtimeError.malformedMessage) { try Self.verify(oversize) }
        var none = packet
        none.replaceSubrange(12..<16, with: RoughtimeMessage.uint32Bytes(0))
        expectThrows(RoughtimeError.malformedMessage) { try Self.verify(none) }
    }

    @Test func aNestedMessageWithABrokenHeaderIsRefused() throws {
        #expect(throws: RoughtimeError.self) { try Self.verify(try Self.forge { $0[4].1 = RoughtimeMessage.uint32Bytes(9) + [UInt8](repeating: 0, count: 8) }) }
        expectThrows(RoughtimeError.truncated) { try RoughtimeMessage(decoding: [UInt8]([1, 0])) }
    }

    @Test func aReplyInAVersionThisSideDoesNotSpeakIsRefused() throws {
        expectThrows(RoughtimeError.unsupportedVersion) {
            try Self.verify(try Self.forge { $0[4].1 = RoughtimeMessage.encode([(.version, RoughtimeMessage.uint32Bytes(0x8000_0007)), (.radius, RoughtimeMessage.uint32Bytes(3))]) })
        }
    }

    /// A verified reply that signs year 9999 (or 2201): a typed error, never a date saturated to 2262.
    @Test(arguments: [UInt64(253_402_300_799), 7_300_000_000, UInt64.max])
    func aSignedTimeNoHonestServerTellsIsRefused(midpoint: UInt64) throws {
        let reply = try Self.forge(midpoint: midpoint, validity: 0...UInt64.max)
        expectThrows(RoughtimeError.timeOutOfRange) { try RoughtimeResponse.verify(reply, request: Self.request, publicKey: Self.publicKey) }
        // The same reply a second inside 2200 verifies.
        let honest = try Self.forge(midpoint: 7_258_118_399, validity: 0...UInt64.max)
        #expect(try RoughtimeResponse.verify(honest, request: Self.request, publicKey: Self.publicKey).midpoint == UnixTime(seconds: 7_258_118_399))
    }
}

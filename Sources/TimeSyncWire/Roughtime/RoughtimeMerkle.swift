import Crypto

/// The hash and Merkle tree a Roughtime server signs many replies with: SHA-512 (truncated to the
/// version's ``RoughtimeVersion/hashLength``), leaves `H(0x00 ‖ leaf)`, nodes `H(0x01 ‖ left ‖ right)`.
package enum RoughtimeMerkle {
    /// The longest path a reply may carry (a tree of 2³² leaves).
    package static let maximumDepth = 32

    /// `H(prefix ‖ parts…)`, truncated to `length` bytes.
    static func hash(_ prefix: UInt8?, _ parts: [ArraySlice<UInt8>], length: Int) -> [UInt8] {
        var hasher = SHA512()
        if let prefix { hasher.update(data: [prefix]) }
        for part in parts { part.withUnsafeBytes { hasher.update(bufferPointer: $0) } }
        return Array(hasher.finalize().prefix(length))
    }

    /// The hash of a leaf.
    package static func leafHash(_ leaf: ArraySlice<UInt8>, length: Int) -> [UInt8] {
        hash(0x00, [leaf], length: length)
    }

    /// The hash of an inner node.
    package static func nodeHash(_ left: [UInt8], _ right: [UInt8]) -> [UInt8] {
        hash(0x01, [left[...], right[...]], length: left.count)
    }

    /// The root that a leaf hash, its path and its index lead to.
    /// - Parameters:
    ///   - leaf: The leaf's hash.
    ///   - path: The sibling hashes from the leaf up, concatenated.
    ///   - index: The leaf's position: bit *i* set when the node at level *i* is a right child.
    /// - Throws: ``RoughtimeError/badTagLength`` for a path that is not whole hashes or longer than
    ///   ``maximumDepth``; ``RoughtimeError/merkleMismatch`` when the index has bits beyond the path.
    package static func root(leaf: [UInt8], path: ArraySlice<UInt8>, index: UInt32) throws(RoughtimeError) -> [UInt8] {
        let length = leaf.count
        guard path.count % length == 0 else { throw RoughtimeError(.badTagLength, "PATH has \(path.count) bytes, not a multiple of \(length)") }
        let depth = path.count / length
        guard depth <= maximumDepth else { throw RoughtimeError(.badTagLength, "PATH has \(depth) nodes (at most \(maximumDepth))") }
        guard depth == 32 || index >> UInt32(depth) == 0 else {
            throw RoughtimeError(.merkleMismatch, "INDX \(index) has bits beyond a path of \(depth) nodes")
        }
        var node = leaf
        for level in 0..<depth {
            let sibling = Array(path[(path.startIndex + level * length)..<(path.startIndex + (level + 1) * length)])
            node = (index >> UInt32(level)) & 1 == 0 ? nodeHash(node, sibling) : nodeHash(sibling, node)
        }
        return node
    }

    /// A tree over leaf hashes, padded with zero hashes to a power of two: its root, and each leaf's path.
    /// - Complexity: O(n log n) for n leaves (one hash per node, the paths copied out).
    package static func tree(leaves: [[UInt8]]) -> (root: [UInt8], paths: [[UInt8]]) {
        precondition(!leaves.isEmpty, "a tree has a leaf")
        let length = leaves[0].count
        var width = 1
        while width < leaves.count { width *= 2 }
        var level = leaves + Array(repeating: [UInt8](repeating: 0, count: length), count: width - leaves.count)
        var paths = [[UInt8]](repeating: [], count: leaves.count)
        var positions = Array(0..<leaves.count)
        while level.count > 1 {
            for leaf in paths.indices { paths[leaf].append(contentsOf: level[positions[leaf] ^ 1]) }
            level = stride(from: 0, to: level.count, by: 2).map { nodeHash(level[$0], level[$0 + 1]) }
            for leaf in positions.indices { positions[leaf] /= 2 }
        }
        return (level[0], paths)
    }

    /// `SHA-512(0xff ‖ key)` truncated to 32 bytes: what a request's SRV holds to name the server's
    /// long-term public key.
    package static func serverIdentifier(publicKey: [UInt8]) -> [UInt8] {
        hash(0xff, [publicKey[...]], length: 32)
    }
}

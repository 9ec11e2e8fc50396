#if NTS
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import TimeSync
import TimeSyncWire

/// The key file: reading it only when its owner alone controls it, its format, and replacing it at once.
extension NTSServerKeys {
    /// The keys in the file. The file is trusted only when this process's user alone controls it
    /// and its path (``OwnerOnlyFile``): anyone who could plant or swap it could forge authenticated
    /// replies. It may be a link inside its directory (a Kubernetes Secret volume's `..data/`).
    func load() throws -> [MasterKey] {
        guard let path else { return [] }
        let bytes: [UInt8]?
        do {
            bytes = try OwnerOnlyFile.contents(of: path, limit: Self.maximumFileSize + 1, followingLinksWithinDirectory: true)
        } catch {
            throw NTSKeyFileError(.untrustedFile, "\(error)", underlying: error.underlying)
        }
        guard let bytes else {
            if configuration.role == .writer { return [] }
            throw NTSKeyFileError(.noKeys, "\(path): no such file; start the key-exchange server (the writer) first")
        }
        guard bytes.count <= Self.maximumFileSize else {
            throw NTSKeyFileError(.malformed, "\(path): larger than \(Self.maximumFileSize) bytes, not a TimeSync NTS key file")
        }
        return try Self.parse(String(decoding: bytes, as: UTF8.self), path: path)
    }

    /// The largest key file read: far more than any number of keys a writer keeps.
    static let maximumFileSize = 1 << 16

    /// The file's text: a header line, then one key a line (identifier, creation in Unix seconds, key),
    /// oldest first.
    static func format(_ keys: [MasterKey]) -> String {
        var text = "# TimeSync NTS master keys: identifier, created (Unix seconds), key. Secret: keep this file private.\n"
        text += "timesync-nts-keys 1\n"
        for key in keys {
            text += "\(Hex.encode(key.id.bigEndianBytes)) \(key.created.seconds) \(Hex.encode(key.key))\n"
        }
        return text
    }

    /// Reads a key file.
    /// - Throws: ``NTSKeyFileError`` naming the line that does not parse.
    static func parse(_ text: String, path: String) throws(NTSKeyFileError) -> [MasterKey] {
        var keys: [MasterKey] = []
        var sawHeader = false
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.split(whereSeparator: \.isWhitespace)
            if trimmed.isEmpty || trimmed[0].hasPrefix("#") { continue }
            if !sawHeader {
                guard trimmed == ["timesync-nts-keys", "1"] else {
                    throw NTSKeyFileError(.malformed, "\(path):\(index + 1): not a TimeSync NTS key file (version 1)")
                }
                sawHeader = true
                continue
            }
            guard trimmed.count == 3, trimmed[0].count == 8, let id = Hex.decode(trimmed[0]), let seconds = Int64(trimmed[1]),
                (0...(Int64(1) << 34)).contains(seconds), let key = Hex.decode(trimmed[2]), key.count == 32
            else { throw NTSKeyFileError(.malformed, "\(path):\(index + 1): expected 'IDENTIFIER(8 hex) CREATED(Unix seconds) KEY(64 hex)'") }
            let value = Self.identifier(id[...])
            guard !keys.contains(where: { $0.id == value }) else {
                throw NTSKeyFileError(.malformed, "\(path):\(index + 1): key \(trimmed[0]) appears twice")
            }
            do {
                keys.append(try MasterKey(id: value, created: UnixTime(seconds: seconds), key: key))
            } catch {
                throw NTSKeyFileError(.malformed, "\(path):\(index + 1): \(error)", underlying: error)
            }
        }
        guard sawHeader else { throw NTSKeyFileError(.malformed, "\(path): empty, not a TimeSync NTS key file") }
        return keys
    }

    static func write(_ keys: [MasterKey], to path: String) throws {
        let temporary = path + ".tmp"
        // Created afresh, 0600, never through a link planted at the temporary name.
        if unlink(temporary) != 0, errno != ENOENT {
            throw NTSKeyFileError(.unwritable, "\(temporary): cannot be removed: \(OwnerOnlyFile.systemError(errno))")
        }
        if let failure = OwnerOnlyFile.create(temporary, bytes: Array(format(keys).utf8)) {
            throw NTSKeyFileError(.unwritable, "\(temporary): cannot be written: \(OwnerOnlyFile.systemError(failure))")
        }
        // rename(2) replaces the file at once: a reader sees the old keys or the new, never half a file.
        guard rename(temporary, path) == 0 else {
            throw NTSKeyFileError(.unwritable, "\(path): cannot be replaced: \(String(cString: strerror(errno)))")
        }
    }
}
#endif

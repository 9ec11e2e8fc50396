#if NTS
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TimeSync
import TimeSyncFixtures
import TimeSyncTesting
@testable import TimeSyncNTS

/// The master keys: cookies, rotation, and the key file a fleet shares.
@Suite struct NTSServerKeysTests {
    let c2s = [UInt8](repeating: 1, count: 32)
    let s2c = [UInt8](repeating: 2, count: 32)

    func directory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("nts-keys-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return path
    }

    /// Writes a key file as its owner keeps it: mode 0600.
    func writePrivately(_ text: String, to file: String) throws {
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
    }

    /// The error for the directory's key file, read by a reader and by a writer (neither trusts it).
    func refusals(_ path: String) -> [String] {
        [NTSServerKeys.Role.reader, .writer].compactMap { role in
            do {
                _ = try NTSServerKeys(configuration: .init(directory: path, role: role), timeBase: ManualTimeBase())
                return nil
            } catch {
                return "\(error)"
            }
        }
    }

    /// Sockets answer on their own threads while the key ring rotates: every request is answered
    /// authenticated while its cookie's key is kept, and with an NTS NAK once it is not — never
    /// dropped, never half a ring seen.
    @Test func requestsAreAnsweredOnSeveralThreadsWhileTheKeysRotate() async throws {
        let keys = try NTSServerKeys(configuration: .init(retainedKeys: 2))
        var session = try NTSProtocolTests.Session(keys: keys)
        let requests = try (0..<8).map { _ in try session.request().bytes }
        let server = session
        let outcomes = await withTaskGroup(of: [String].self) { group in
            for thread in 0..<2 {
                group.addTask {
                    (0..<100).map { index in
                        switch server.serve(requests[(index + thread) % requests.count]) {
                        case .authenticatedReply: "authenticated"
                        case .negativeAcknowledgment: "nak"
                        default: "other"
                        }
                    }
                }
            }
            group.addTask {
                for _ in 0..<20 { try? keys.rotate() }
                return []
            }
            return await group.reduce(into: []) { $0 += $1 }
        }
        #expect(outcomes.count == 200)
        #expect(!outcomes.contains("other"), "a request dropped or answered in the clear")
        #expect(keys.keyIdentifiers.count == 2)
        // Two rotations later the cookies' key is gone: a NAK, every time.
        #expect(requests.allSatisfy { if case .negativeAcknowledgment = server.serve($0) { true } else { false } })
    }

    /// Whoever can plant or swap the key file could forge authenticated replies: a key file others
    /// can read or write, a symbolic link, or a directory others can write is refused, and no server
    /// starts on it.
    @Test func aKeyFileOnlyItsOwnerControlsIsTheOnlyOneUsed() throws {
        let path = try directory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        _ = try NTSServerKeys(configuration: .init(directory: path), timeBase: ManualTimeBase())
        let file = path + "/ntskeys"
        #expect(refusals(path).isEmpty, "the writer's own file is used")
        #expect(chmod(file, 0o666) == 0)
        #expect(refusals(path).count == 2 && refusals(path).allSatisfy { $0.contains("is open to other users (mode 666)") }, "\(refusals(path))")
        #expect(chmod(file, 0o600) == 0)
        #expect(chmod(path, 0o777) == 0)
        #expect(refusals(path).count == 2 && refusals(path).allSatisfy { $0.contains("is writable by other users (mode 777)") }, "\(refusals(path))")
        #expect(chmod(path, 0o700) == 0)
        let elsewhere = try directory()
        defer { try? FileManager.default.removeItem(atPath: elsewhere) }
        #expect(rename(file, elsewhere + "/ntskeys") == 0)
        try FileManager.default.createSymbolicLink(atPath: file, withDestinationPath: elsewhere + "/ntskeys")
        #expect(refusals(path).count == 2 && refusals(path).allSatisfy { $0.contains("symbolic link") }, "\(refusals(path))")
    }

    @Test(.enabled(if: geteuid() == 0, "only root can give a file to another user"))
    func aKeyFileAnotherUserOwnsIsRefused() throws {
        let path = try directory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        _ = try NTSServerKeys(configuration: .init(directory: path), timeBase: ManualTimeBase())
        #expect(chown(path + "/ntskeys", 65534, 65534) == 0)
        #expect(refusals(path).count == 2 && refusals(path).allSatisfy { $0.contains("belongs to user 65534") }, "\(refusals(path))")
    }

    /// A world-writable directory above the key directory (not sticky) would let another user swap
    /// the whole directory: refused for both roles, naming that directory, and no key file is written.
    @Test func aWorldWritableParentOfTheDirectoryIsRefusedAndNoKeyIsWritten() throws {
        let temporary = try TemporaryDirectory("nts-keys")
        let parent = temporary.path + "/parent"
        let keys = parent + "/keys"
        try FileManager.default.createDirectory(atPath: keys, withIntermediateDirectories: true)
        #expect(chmod(keys, 0o700) == 0 && chmod(parent, 0o777) == 0)
        for role in [NTSServerKeys.Role.writer, .reader] {
            do {
                _ = try NTSServerKeys(configuration: .init(directory: keys, role: role), timeBase: ManualTimeBase())
                Issue.record("\(role): keys used under a world-writable directory")
            } catch let error as NTSKeyFileError {
                let path = error.underlying as? UntrustedPathError
                #expect(error.code == .untrustedFile && path?.code == .writableByOthers && path?.component == parent, "\(role): \(error)")
                #expect(error.description.contains("chmod go-w \(parent)"), "\(error)")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: keys + "/ntskeys"), "no key file written")
    }

    /// A Kubernetes Secret volume: a sticky root-owned mount whose file is a link into `..data/`, itself
    /// a link to the timestamped directory that holds the file. Links that stay inside the directory
    /// and belong to this user or root are followed; the reader gets the writer's keys.
    func secretVolume(in temporary: TemporaryDirectory, keysFrom source: String) throws -> String {
        let volume = temporary.path + "/volume"
        let version = "..2026_11_26_08_00_00.000000001"
        try FileManager.default.createDirectory(atPath: volume + "/" + version, withIntermediateDirectories: true)
        #expect(chmod(volume, 0o1777) == 0 && chmod(volume + "/" + version, 0o755) == 0)
        try FileManager.default.copyItem(atPath: source + "/ntskeys", toPath: volume + "/" + version + "/ntskeys")
        #expect(chmod(volume + "/" + version + "/ntskeys", 0o600) == 0)
        #expect(symlink(version, volume + "/..data") == 0)
        #expect(symlink("..data/ntskeys", volume + "/ntskeys") == 0)
        return volume
    }

    @Test func aKubernetesSecretVolumesLinksInsideTheDirectoryAreFollowed() throws {
        let temporary = try TemporaryDirectory("nts-keys")
        let source = temporary.path + "/source"
        try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let writer = try NTSServerKeys(configuration: .init(directory: source), timeBase: ManualTimeBase())
        let volume = try secretVolume(in: temporary, keysFrom: source)
        let reader = try NTSServerKeys(configuration: .init(directory: volume, role: .reader), timeBase: ManualTimeBase())
        #expect(reader.keyIdentifiers == writer.keyIdentifiers)
        #expect(reader.openCookie(writer.makeCookie(clientToServer: c2s, serverToClient: s2c))?.serverToClient == s2c)
        // The timestamped directory open to others: refused by its name.
        #expect(chmod(volume + "/..2026_11_26_08_00_00.000000001", 0o777) == 0)
        #expect(refusals(volume).first?.contains("..2026_11_26_08_00_00.000000001, owned by user") == true, "\(refusals(volume))")
    }

    @Test(.enabled(if: geteuid() == 0, "only root can give a link to another user"))
    func aLinkInTheVolumeAnotherUserOwnsIsRefused() throws {
        let temporary = try TemporaryDirectory("nts-keys")
        let source = temporary.path + "/source"
        try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        _ = try NTSServerKeys(configuration: .init(directory: source), timeBase: ManualTimeBase())
        let volume = try secretVolume(in: temporary, keysFrom: source)
        #expect(lchown(volume + "/..data", 65534, 65534) == 0)
        let refused = refusals(volume)
        #expect(refused.count == 2 && refused.allSatisfy { $0.contains("the symbolic link \(volume)/..data belongs to user 65534") }, "\(refused)")
    }

    @Test func aCookieOpensToItsKeysAndNothingElseOpens() throws {
        let keys = try NTSServerKeys()
        let cookie = keys.makeCookie(clientToServer: c2s, serverToClient: s2c)
        #expect(cookie.count == NTSServerKeys.cookieLength)
        let opened = try #require(keys.openCookie(cookie))
        #expect(opened.clientToServer == c2s && opened.serverToClient == s2c)
        for index in cookie.indices {
            var altered = cookie
            altered[index] ^= 0x04
            #expect(keys.openCookie(altered) == nil, "byte \(index) altered")
        }
        #expect(try NTSServerKeys().openCookie(cookie) == nil, "another server's keys")
        #expect(keys.openCookie(Array(cookie.dropLast())) == nil)
    }

    /// Rotation keeps the newest keys: a cookie under a retained key still opens, one under a key
    /// rotated out does not.
    @Test func rotationKeepsRecentKeys() throws {
        let timeBase = ManualTimeBase()
        let keys = try NTSServerKeys(configuration: .init(rotationInterval: .seconds(3600), retainedKeys: 2), timeBase: timeBase)
        let old = keys.makeCookie(clientToServer: c2s, serverToClient: s2c)
        timeBase.advance(by: .seconds(1800))
        try keys.rotateIfDue()
        #expect(keys.keyIdentifiers.count == 1, "not due yet")
        timeBase.advance(by: .seconds(1800))
        try keys.rotateIfDue()
        #expect(keys.keyIdentifiers.count == 2)
        #expect(keys.openCookie(old) != nil, "the previous key is still accepted")
        let newer = keys.makeCookie(clientToServer: c2s, serverToClient: s2c)
        #expect(newer.prefix(4) != old.prefix(4), "new cookies use the new key")
        timeBase.advance(by: .seconds(3600))
        try keys.rotateIfDue()
        #expect(keys.openCookie(old) == nil, "rotated out")
        #expect(keys.openCookie(newer) != nil)
    }

    /// A reader opens the cookies the writer issues, and follows a rotation when a cookie names a key
    /// it does not know yet.
    @Test func aReaderSharesTheWritersKeysThroughTheDirectory() throws {
        let path = try directory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let timeBase = ManualTimeBase()
        #expect(throws: NTSKeyFileError.self) { try NTSServerKeys(configuration: .init(directory: path, role: .reader), timeBase: timeBase) }
        let writer = try NTSServerKeys(configuration: .init(directory: path), timeBase: timeBase)
        let attributes = try FileManager.default.attributesOfItem(atPath: path + "/ntskeys")
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let reader = try NTSServerKeys(configuration: .init(directory: path, role: .reader), timeBase: timeBase)
        #expect(reader.openCookie(writer.makeCookie(clientToServer: c2s, serverToClient: s2c))?.serverToClient == s2c)
        try writer.rotate()
        let rotated = writer.makeCookie(clientToServer: c2s, serverToClient: s2c)
        timeBase.advance(by: .seconds(2))
        #expect(reader.openCookie(rotated)?.clientToServer == c2s, "the reader reloads for an unknown key")
        #expect(reader.keyIdentifiers == writer.keyIdentifiers)
        // A writer restarted on the directory keeps the keys it finds.
        let restarted = try NTSServerKeys(configuration: .init(directory: path), timeBase: timeBase)
        #expect(restarted.openCookie(rotated) != nil)
    }

    /// A key file edited by hand into nonsense: a typed error naming the line, and the keys held stay.
    @Test func aBadKeyFileChangesNothing() throws {
        let path = try directory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let timeBase = ManualTimeBase()
        let writer = try NTSServerKeys(configuration: .init(directory: path), timeBase: timeBase)
        let reader = try NTSServerKeys(configuration: .init(directory: path, role: .reader), timeBase: timeBase)
        let file = path + "/ntskeys"
        let good = try String(contentsOfFile: file, encoding: .utf8)
        for bad in [
            good + "zzzzzzzz 1 00\n",
            good.replacingOccurrences(of: "timesync-nts-keys 1", with: "timesync-nts-keys 2"),
            good + good.split(separator: "\n").last! + "\n",
            "",
        ] {
            try writePrivately(bad, to: file)
            do {
                _ = try NTSServerKeys(configuration: .init(directory: path, role: .reader), timeBase: timeBase)
                Issue.record("accepted: \(bad)")
            } catch let error as NTSKeyFileError {
                #expect(!error.description.contains("other users"), "refused for its contents, not its mode: \(error)")
            }
        }
        // Nor does a writer replace a file it cannot read: it refuses to start.
        #expect(throws: NTSKeyFileError.self) { try NTSServerKeys(configuration: .init(directory: path), timeBase: timeBase) }
        do {
            try writePrivately(good + "0000000g 1 00\n", to: file)
            _ = try NTSServerKeys(configuration: .init(directory: path, role: .reader), timeBase: timeBase)
            Issue.record("a malformed line was accepted")
        } catch let error as NTSKeyFileError {
            #expect(error.description.contains("ntskeys:4:"), "names the line: \(error)")
        }
        timeBase.advance(by: .seconds(2))
        let unknown = try NTSServerKeys().makeCookie(clientToServer: c2s, serverToClient: s2c)
        #expect(reader.openCookie(unknown) == nil, "the reload fails")
        #expect(reader.openCookie(writer.makeCookie(clientToServer: c2s, serverToClient: s2c)) != nil, "and the keys held still work")
    }
}
#endif

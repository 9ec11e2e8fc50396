import Foundation

/// The saved form of a calibration: versioned JSON stamped with the boot session, sealed with an
/// HMAC-SHA256 tag under this install's key (see ``CalibrationKeyProvider``).
///
/// The monotonic anchor only means something within the boot session that made it: after a reboot the
/// stored calibration is discarded, and only its ``floor`` is kept. A store whose tag does not verify
/// is discarded unread, floor and all.
package struct PersistedCalibration: Sendable, Hashable, Codable {
    /// The format version this build writes and reads (2: authenticated).
    package static let currentVersion = 2
    /// The largest store read: 1 MiB. A full window of every source fits many times over; a larger
    /// store is ignored unread.
    package static let maximumSize = 1 << 20
    /// The most samples a store may hold: 4096.
    package static let maximumSamples = 4096

    /// The format version.
    package var version: Int
    /// The boot session the monotonic instants belong to: the system's identifier in memory; in a
    /// sealed store its ``bootSessionTag(_:key:)``, so a store never holds the identifier itself (a
    /// device signal).
    package var bootSessionID: String
    /// When it was saved, on the monotonic clock.
    package var savedAt: MonotonicInstant
    /// The strategy that produced it.
    package var strategy: String
    /// The calibration at save time.
    package var calibration: Calibration?
    /// The estimator's samples, replayed at restore so filtering and drift measurement go on.
    package var samples: [OffsetSample]
    /// The highest server time the clock had vouched for by ``savedAt`` (in the boot session
    /// ``bootSessionID``): server time is at least this ever after, reboots included. `nil` when the
    /// clock had never been synchronized.
    package var floor: UnixTime?
    /// The device's wall clock at ``savedAt``, when the saver read it: a store is restored in this
    /// boot session only if the monotonic time elapsed since the save is not longer than the wall
    /// time elapsed (with ``restoreTolerance(elapsed:)``), so a store from another monotonic epoch that shares
    /// the boot identifier (a time namespace) cannot pass as this one's.
    package var savedAtWallClock: UnixTime?

    /// How much longer than the wall clock the monotonic clock may have run since a save before the
    /// store is taken for another monotonic epoch: 2 s, plus 0.1 % of the elapsed time (far beyond
    /// any clock's drift or a wall clock's slew).
    package static func restoreTolerance(elapsed: Duration) -> Duration {
        .seconds(2) + elapsed / 1000
    }

    /// Creates a snapshot in the current format.
    package init(
        bootSessionID: String, savedAt: MonotonicInstant, strategy: String, calibration: Calibration?, samples: [OffsetSample],
        floor: UnixTime? = nil
    ) {
        self.version = Self.currentVersion
        self.bootSessionID = bootSessionID
        self.savedAt = savedAt
        self.strategy = strategy
        self.calibration = calibration
        self.samples = samples
        self.floor = floor
    }

    /// The JSON bytes (unsealed: what ``sealed(key:)`` authenticates).
    package func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(self)
    }

    /// The bytes a store holds: the JSON, with the boot session's identifier replaced by its
    /// ``bootSessionTag(_:key:)``, and its HMAC-SHA256 tag under `key`.
    /// - Parameter key: This install's key (at least 32 bytes).
    package func sealed(key: [UInt8]) throws -> Data {
        var stored = self
        stored.bootSessionID = Self.bootSessionTag(bootSessionID, key: key)
        return try SealedCalibration.seal(try stored.encoded(), key: key)
    }

    /// What a store keeps of a boot session's identifier: HMAC-SHA256 under the store's key, in hex.
    /// Equal identifiers give equal tags under one key; the identifier cannot be read back.
    /// - Parameters:
    ///   - bootSessionID: The system's boot session identifier.
    ///   - key: This install's key.
    package static func bootSessionTag(_ bootSessionID: String, key: [UInt8]) -> String {
        SealedCalibration.tag(Data("timesync boot session\u{0}\(bootSessionID)".utf8), key: key).map { String(format: "%02x", $0) }.joined()
    }

    /// Seals arbitrary content as a store would: for tools that migrate or inspect stores, and tests
    /// of what a clock does with content that verifies.
    /// - Parameters:
    ///   - content: The JSON to seal (normally ``encoded()``'s).
    ///   - key: The key.
    package static func seal(content: Data, key: [UInt8]) throws -> Data {
        try SealedCalibration.seal(content, key: key)
    }

    /// The content of a store's bytes whose tag verifies under `key`: what ``seal(content:key:)``
    /// sealed.
    /// - Throws: An error saying why the bytes are not an authenticated store under this key.
    package static func content(ofSealed data: Data, key: [UInt8]) throws -> Data {
        try SealedCalibration.open(data, key: key)
    }

    /// Whether bytes are a TimeSync calibration store, of any format version and under any key: the
    /// sealed form (`"format": "timesync-calibration"`), or the unsealed JSON of format version 1
    /// (`version`, `bootSessionID`, `samples`). A store file is replaced only when it holds one.
    static func isStoreFile(_ data: Data) -> Bool {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return false }
        if object["format"] as? String == SealedCalibration.formatName { return true }
        return object["version"] is NSNumber && object["bootSessionID"] is String && object["samples"] is [Any]
    }

    /// What reading a store gave.
    enum RestoreOutcome {
        case none
        case ignored(String)
        /// Saved in this boot session: the calibration, its samples and its floor.
        case restored(PersistedCalibration)
        /// Saved in another boot session, or another monotonic epoch: only the floor (if any) means
        /// something now, as it was at the save (it does not count on); `reason` says why the rest is
        /// not used.
        case otherBoot(floor: UnixTime?, reason: String)
    }

    /// Reads, authenticates and checks a store's content against the current boot session. Never
    /// throws: a problem is a reason to ignore the store.
    static func restore(from store: any CalibrationStore, key: [UInt8], timeBase: any TimeBase) -> RestoreOutcome {
        let data: Data
        do {
            guard let loaded = try store.load() else { return .none }
            data = loaded
        } catch {
            return .ignored("unreadable: \(error)")
        }
        guard data.count <= maximumSize else {
            return .ignored("larger than \(maximumSize) bytes")
        }
        let content: Data
        do {
            content = try SealedCalibration.open(data, key: key)
        } catch {
            return .ignored("\(error)")
        }
        let persisted: PersistedCalibration
        do {
            persisted = try JSONDecoder().decode(PersistedCalibration.self, from: content)
        } catch {
            return .ignored("corrupt: \(error)")
        }
        guard persisted.version == currentVersion else {
            return .ignored("format version \(persisted.version), expected \(currentVersion)")
        }
        guard persisted.samples.count <= maximumSamples else {
            return .ignored("more than \(maximumSamples) samples")
        }
        if let floor = persisted.floor, !SampleLimits.serverTimes.contains(floor) {
            return .ignored("a floor outside the server times a sample may carry")
        }
        if let wall = persisted.savedAtWallClock, !SampleLimits.serverTimes.contains(wall) {
            return .ignored("a save time outside the times a sample may carry")
        }
        guard let current = timeBase.bootSessionID, bootSessionTag(current, key: key) == persisted.bootSessionID else {
            return .otherBoot(
                floor: persisted.floor, reason: "saved in another boot session: the monotonic anchor is meaningless after a reboot")
        }
        // Every sample passed the same checks as a fresh one while decoding; the instants must also
        // lie in this boot session's past.
        let pair = timeBase.wallClockPair()
        let now = pair.monotonic
        guard SampleLimits.monotonicInstants.contains(persisted.savedAt.nanoseconds), persisted.savedAt <= now,
            persisted.samples.allSatisfy({ $0.time <= now }), persisted.calibration.map({ $0.time <= now }) ?? true
        else {
            return .otherBoot(
                floor: persisted.floor,
                reason: "saved in the future of this monotonic clock: another monotonic epoch (a time namespace, or a reboot the boot identifier missed)")
        }
        if let wall = persisted.savedAtWallClock {
            // The monotonic clock may not have run longer than the wall clock since the save: if it
            // did, either its epoch moved (a time namespace sharing the boot identifier) or the device
            // clock was set back meanwhile. The two look alike, and only the first makes the anchor
            // wrong; neither can be ruled out, so only the floor is kept.
            let monotonicElapsed = Duration.nanoseconds(now.nanoseconds.saturatingSubtract(persisted.savedAt.nanoseconds))
            let wallElapsed = Duration.nanoseconds(pair.wall.nanoseconds.saturatingSubtract(wall.nanoseconds))
            if monotonicElapsed > wallElapsed + restoreTolerance(elapsed: monotonicElapsed) {
                return .otherBoot(
                    floor: persisted.floor,
                    reason: "the monotonic clock ran \((monotonicElapsed - wallElapsed).readable) longer than the device clock since the save: another monotonic epoch (a time namespace) or a device clock set back; the anchor cannot be trusted")
            }
        }
        return .restored(persisted)
    }
}

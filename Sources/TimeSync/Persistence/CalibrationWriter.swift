import Foundation

/// Writes a clock's snapshots to its store off the caller's path: the newest snapshot wins, writes
/// never overlap, and one never replaces a newer one.
final class CalibrationWriter: Sendable {
    private struct Queue: Sendable {
        var pending: (sequence: UInt64, snapshot: PersistedCalibration)?
        var draining = false
    }

    let store: any CalibrationStore
    private let queue = Locked(Queue())
    /// Tasks waiting for the queue to drain.
    private let waiters = Waiters()
    /// The sequence number of the newest snapshot written (or attempted); held while writing, so
    /// that writes are serialized.
    private let written = Locked<UInt64>(0)
    private let onError: @Sendable (String) -> Void
    /// The key each snapshot is sealed with, asked for again at each write until it is known.
    private let key: CalibrationKeyHolder

    init(store: any CalibrationStore, key: CalibrationKeyHolder, onError: @escaping @Sendable (String) -> Void) {
        self.store = store
        self.key = key
        self.onError = onError
    }

    /// Queues a snapshot for the background task, replacing one not yet written.
    func submit(_ snapshot: PersistedCalibration, sequence: UInt64) {
        let start = queue.withLock { queue -> Bool in
            queue.pending = (sequence, snapshot)
            guard !queue.draining else { return false }
            queue.draining = true
            return true
        }
        if start { Task.detached(priority: .utility) { self.drain() } }
    }

    private func drain() {
        while true {
            let next = queue.withLock { queue -> (UInt64, PersistedCalibration)? in
                guard let pending = queue.pending else {
                    queue.draining = false
                    return nil
                }
                queue.pending = nil
                return pending
            }
            guard let (sequence, snapshot) = next else {
                waiters.wakeAll()
                return
            }
            try? write(snapshot, sequence: sequence)
        }
    }

    /// Writes a snapshot now, on the caller's thread, unless a newer one was written.
    /// - Throws: The encoding's or the store's error (also reported to `onError`).
    func write(_ snapshot: PersistedCalibration, sequence: UInt64) throws {
        try written.withLock { written in
            guard sequence > written else { return }
            written = sequence
            let key: [UInt8]
            do {
                key = try self.key.current()
            } catch {
                onError("not saved: no key to authenticate the store yet (\(error)); the next change asks for it again")
                throw error
            }
            do {
                try store.save(try snapshot.sealed(key: key))
            } catch {
                onError(Self.reason(for: error))
                throw error
            }
        }
    }

    /// Removes what is stored; snapshots numbered up to `sequence` are never written after this.
    func remove(superseding sequence: UInt64) throws {
        try written.withLock { written in
            written = max(written, sequence)
            try store.remove()
        }
    }

    /// A failed write in one line: a TimeSync error's message (a `FileCalibrationStoreError` names
    /// the path, the system's reason and what to do); for a file system error from another store, the
    /// file, the system's reason and what to do, never Foundation's dump of the error.
    static func reason(for error: any Error) -> String {
        if let error = error as? any CodedError { return oneLine(error.description) }
        let bridged = error as NSError
        guard bridged.domain == NSCocoaErrorDomain || bridged.domain == NSPOSIXErrorDomain else { return oneLine("\(error)") }
        let file = (bridged.userInfo[NSFilePathErrorKey] as? String).map { " \($0)" } ?? ""
        return "the calibration store\(file) cannot be written: \(FileCalibrationStore.systemReason(error)); check where the store is kept and its permissions"
    }

    /// The text with its line breaks made spaces, for a one-line warning.
    private static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    /// Waits until the background task has written everything queued so far.
    func idle() async {
        await waiters.wait { queue.withLock { !$0.draining } }
    }
}

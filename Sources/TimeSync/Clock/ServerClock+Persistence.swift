extension ServerClock {
    /// Writes the clock's state to its store now, on the caller's thread, whatever the policy: call
    /// it when the app goes to the background or stops. Does nothing without a store or on a platform
    /// without boot session identifiers.
    /// - Throws: The store's error (also sent as ``ServerClockEvent/storeFailed(reason:)``).
    public func flush() throws {
        guard let persistence else { return }
        let monotonic = timeBase.monotonicNow()
        if let snapshot = state.withLock({ persistence.flushSnapshot($0.calibration, at: monotonic) }) {
            try persistence.write(snapshot)
        }
    }

    /// Waits until the background writes queued so far are done (for tests and orderly shutdown).
    package func storeWritesIdle() async {
        await persistence?.idle()
    }

    /// A deferred write came due: saves the state as it is now.
    func deferredWriteDue() {
        guard let persistence else { return }
        let monotonic = timeBase.monotonicNow()
        state.withLock { persistence.deferredWriteDue($0.calibration, at: monotonic) }
    }

    /// The store's key and writer, or `nil` with a warning when no key authenticates it.
    static func open(
        _ store: any CalibrationStore, keyProvider: (any CalibrationKeyProvider)?, timeBase: any TimeBase, policy: PersistencePolicy,
        events: EventSubscribers<ServerClockEvent>, onWarning: (@Sendable (String) -> Void)?
    ) -> (store: any CalibrationStore, key: [UInt8], persistence: ClockPersistence)? {
        do {
            let key = try (keyProvider ?? SystemCalibrationKeyProvider()).key()
            guard key.count >= SystemCalibrationKeyProvider.minimumKeyLength else {
                throw CalibrationKeyError("the key has \(key.count) bytes, fewer than \(SystemCalibrationKeyProvider.minimumKeyLength)")
            }
            let writer = CalibrationWriter(store: store, key: key) { reason in events.emit(.storeFailed(reason: reason)) }
            return (store, key, ClockPersistence(writer: writer, timeBase: timeBase, policy: policy))
        } catch {
            let reason = "no key to authenticate it (\(error)): calibrations are neither restored nor saved"
            onWarning?("TimeSync: stored calibration ignored: \(reason)")
            events.emit(.storeIgnored(reason: reason))
            return nil
        }
    }

    /// Restores what the store holds for this boot session, from the configured sources only.
    func restore(from store: any CalibrationStore, key: [UInt8], onWarning: (@Sendable (String) -> Void)?) {
        switch PersistedCalibration.restore(from: store, key: key, timeBase: timeBase) {
        case .none:
            return
        case .ignored(let reason):
            onWarning?("TimeSync: stored calibration ignored: \(reason)")
            subscribers.emit(.storeIgnored(reason: reason))
        case .restored(let persisted):
            let allowed = configuration.restorableSources
            let samples = allowed.map { allowed in persisted.samples.filter { allowed.contains($0.source) } } ?? persisted.samples
            state.withLock { state in publish(state.calibration.restore(samples), in: &state) }
        }
    }
}

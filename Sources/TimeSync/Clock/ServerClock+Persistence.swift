extension ServerClock {
    /// Writes the clock's state to its store now, on the caller's thread, whatever the policy: call
    /// it when the app goes to the background or stops. Does nothing without a store or on a platform
    /// without boot session identifiers.
    /// - Throws: The store's error (also sent as `ServerClockEvent.storeFailed(reason:)`).
    public func flush() throws(TimeSyncError) {
        try TimeSyncError.converting(otherwise: .storeUnavailable) {
            guard let persistence else { return }
            let monotonic = timeBase.monotonicNow()
            if let snapshot = state.withLock({ persistence.flushSnapshot($0.calibration, at: monotonic) }) {
                try persistence.write(snapshot)
            }
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

    /// The store's writer, and its key when the provider gives it now; `nil` with a warning when
    /// this system cannot tell boot sessions apart (a saved calibration could not be told from one of
    /// an earlier boot) or the store refuses to be used (``CalibrationStore/validate()``: a
    /// ``FileCalibrationStore`` at the path of a file that is not a store).
    ///
    /// When the provider refuses now (a Keychain before the device's first unlock), the store is not
    /// restored, with a warning, and each later write asks for the key again.
    /// - Parameter note: Set to what a user should know of the persistence when it is not as asked:
    ///   why the store is not used, or that the boot time tells boots apart.
    static func open(
        _ store: any CalibrationStore, keyProvider: (any CalibrationKeyProvider)?, timeBase: any TimeBase, policy: PersistencePolicy,
        events: EventSubscribers<ServerClockEvent>, onWarning: (@Sendable (String) -> Void)?, note: inout String?
    ) -> (store: any CalibrationStore, key: [UInt8]?, persistence: ClockPersistence)? {
        guard let bootSessionID = timeBase.bootSessionID else {
            let reason = "this system gives neither a boot session identifier nor its boot time, so a saved calibration could not be told from one of an earlier boot: calibrations are neither restored nor saved"
            onWarning?("TimeSync: stored calibration ignored: \(reason)")
            events.emit(.storeIgnored(reason: reason))
            note = "off: \(reason)"
            return nil
        }
        if BootSession.isBootTime(bootSessionID) {
            let reason = "this system refused its boot session identifier, so the boot time tells boots apart: after a change of this device's clock, a saved calibration is taken for an earlier boot's (only its floor is kept)"
            onWarning?("TimeSync: \(reason)")
            note = "on the boot time: \(reason)"
        }
        do {
            try store.validate()
        } catch {
            let reason = "the store cannot be used (\(error)): calibrations are neither restored nor saved"
            onWarning?("TimeSync: stored calibration ignored: \(reason)")
            events.emit(.storeIgnored(reason: reason))
            note = "off: \(reason)"
            return nil
        }
        let holder = CalibrationKeyHolder(provider: keyProvider ?? SystemCalibrationKeyProvider())
        let writer = CalibrationWriter(store: store, key: holder) { reason in events.emit(.storeFailed(reason: reason)) }
        let persistence = ClockPersistence(writer: writer, timeBase: timeBase, policy: policy)
        do {
            return (store, try holder.current(), persistence)
        } catch {
            let reason = "no key to authenticate it (\(error)): the stored calibration is not restored; saving asks for the key again at each write"
            onWarning?("TimeSync: stored calibration ignored: \(reason)")
            events.emit(.storeIgnored(reason: reason))
            note = "not restored: \(reason)"
            return (store, nil, persistence)
        }
    }

    /// Restores what the store holds for this boot session, from the configured sources only; from
    /// another boot session, only its floor.
    func restore(from store: any CalibrationStore, key: [UInt8], onWarning: (@Sendable (String) -> Void)?) {
        switch PersistedCalibration.restore(from: store, key: key, timeBase: timeBase) {
        case .none:
            return
        case .ignored(let reason):
            onWarning?("TimeSync: stored calibration ignored: \(reason)")
            subscribers.emit(.storeIgnored(reason: reason))
        case .otherBoot(let floor, var reason):
            if let floor {
                // Server time was at least the floor when it was saved, before this boot: so it is now.
                let monotonic = timeBase.monotonicNow()
                state.withLock { _ = $0.calibration.raiseFloor(to: floor, at: monotonic) }
                reason += "; its floor is kept: server time is at least \(floor)"
            }
            onWarning?("TimeSync: stored calibration ignored: \(reason)")
            subscribers.emit(.storeIgnored(reason: reason))
        case .restored(let persisted):
            let allowed = configuration.restorableSources
            let samples = allowed.map { allowed in persisted.samples.filter { allowed.contains($0.source) } } ?? persisted.samples
            let others = allowed.map { allowed in persisted.samples.filter { !allowed.contains($0.source) } } ?? []
            state.withLock { state in
                // The floor held at the save, in this boot session: it counts on from then.
                if let floor = persisted.floor { state.calibration.raiseFloor(to: floor, at: persisted.savedAt) }
                // Other sources' samples are not used, but kept for the run whose sources they are;
                // with this run's own, they stay within what a store may hold.
                state.calibration.retain(others, limit: PersistedCalibration.maximumSamples / 2)
                publish(state.calibration.restore(samples), in: &state)
            }
        }
    }
}

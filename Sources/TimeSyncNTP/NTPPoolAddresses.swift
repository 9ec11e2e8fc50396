import TimeSync
import TimeSyncWire

/// How the polling of each address ended, for the task that resolved its name.
final class AddressEnds: Sendable {
    private let ended = Locked<[String: PollAction]>([:])
    private let waiters = Waiters()

    /// The address's polling ended with `action` (`.resolve`: it went silent; `.demobilize`: it said
    /// `DENY` or `RSTR`).
    func end(_ source: String, with action: PollAction) {
        ended.withLock { $0[source] = action }
        waiters.wakeAll()
    }

    /// Waits until the polling of every one of `sources` has ended.
    /// - Returns: How each ended, or `nil` when the task was cancelled first.
    func wait(for sources: [String]) async -> [PollAction]? {
        let ended = self.ended
        let actions = try? await waiters.wait {
            ended.withLock { ended -> [PollAction]? in
                let actions = sources.compactMap { ended[$0] }
                guard actions.count == sources.count else { return nil }
                for source in sources { ended[source] = nil }
                return actions
            }
        }
        return actions
    }
}

/// The addresses being polled, so two names resolving to one server poll it once, and the pool
/// stays within its size.
actor AddressRegistry {
    private let capacity: Int
    private var active: Set<IPEndpoint> = []

    init(capacity: Int) {
        self.capacity = capacity
    }

    func claim(_ addresses: [IPEndpoint], upTo limit: Int) -> [IPEndpoint] {
        var claimed: [IPEndpoint] = []
        for address in addresses where claimed.count < limit && active.count < capacity && !active.contains(address) {
            active.insert(address)
            claimed.append(address)
        }
        return claimed
    }

    func release(_ addresses: [IPEndpoint]) {
        for address in addresses { active.remove(address) }
    }
}

#if canImport(Network) && !os(watchOS)
import Dispatch
import Network

extension TimeSynchronizer {
    /// Resynchronizes whenever the network path changes (Wi-Fi to cellular, offline to online):
    /// earlier samples went over another path. The path the monitor reports when it starts is not a
    /// change. Cancel the returned monitor to stop.
    ///
    /// Not on watchOS, where a path monitor stays unsatisfied outside the few cases that allow
    /// low-level networking (Apple's TN3135).
    package func observeNetworkPathChanges(queue: DispatchQueue = .global(qos: .utility)) -> NWPathMonitor {
        let monitor = NWPathMonitor()
        let filter = Locked(NetworkPathChangeFilter())
        monitor.pathUpdateHandler = { [weak self] path in
            let interfaces = path.availableInterfaces.map(\.name).joined(separator: ",")
            let changed = filter.withLock { $0.update(satisfied: path.status == .satisfied, path: interfaces) }
            if changed { self?.resynchronize(reason: "the network path changed") }
        }
        monitor.start(queue: queue)
        return monitor
    }
}
#endif

#if canImport(Network)
import Dispatch
import Network

extension TimeSynchronizer {
    /// Resynchronizes whenever the network path changes (Wi-Fi to cellular, offline to online):
    /// earlier samples went over another path. Cancel the returned monitor to stop.
    public func observeNetworkPathChanges(queue: DispatchQueue = .global(qos: .utility)) -> NWPathMonitor {
        let monitor = NWPathMonitor()
        monitor.pathUpdateHandler = { [weak self] path in
            if path.status == .satisfied { self?.resynchronize(reason: "the network path changed") }
        }
        monitor.start(queue: queue)
        return monitor
    }
}
#endif

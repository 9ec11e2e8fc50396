/// Which of a host name's addresses a client may use, and in what order.
///
/// A public name that resolves to a loopback, private or link-local address is a misconfigured or
/// hostile DNS answer: using it would reach into the user's own network (on iOS it shows the Local
/// Network permission prompt), the way DNS rebinding does. Such answers are skipped unless the app
/// opts in. An IP literal is never filtered (the caller chose that address), nor is `localhost` or a
/// name under `.localhost`.
public struct AddressPolicy: Sendable, Hashable {
    /// Whether a name may resolve to loopback, private and link-local addresses.
    public var allowsLocalAddresses: Bool

    /// Creates a policy.
    public init(allowsLocalAddresses: Bool = false) {
        self.allowsLocalAddresses = allowsLocalAddresses
    }

    /// Public addresses only, for names (the default).
    public static let publicOnly = AddressPolicy()
    /// Every address a name resolves to: for servers on your own network, reached by name.
    public static let allowingLocal = AddressPolicy(allowsLocalAddresses: true)

    /// What a name's resolution leaves to use.
    package enum Selection: Sendable, Hashable {
        /// These addresses, in the order to try.
        case use([IPEndpoint])
        /// The name resolved only to addresses the policy refuses (none when it resolved to nothing).
        case refused([IPEndpoint])
    }

    /// Filters and orders a name's addresses.
    ///
    /// Duplicates are dropped, and the families alternate (the resolver's first family first: IPv6,
    /// IPv4, IPv6, …), so a family that does not work costs one try, not every address of the name.
    /// - Parameters:
    ///   - addresses: The resolver's answers, in its order.
    ///   - host: The name that was resolved (`localhost` and `*.localhost` may be local).
    /// - Returns: The addresses to try, or the refused ones when none is left.
    /// - Complexity: O(n²) for n addresses (a name has a handful).
    package func select(_ addresses: [IPEndpoint], forHost host: String) -> Selection {
        var unique: [IPEndpoint] = []
        for address in addresses where !unique.contains(address) { unique.append(address) }
        let name = host.lowercased()
        let local = allowsLocalAddresses || name == "localhost" || name.hasSuffix(".localhost")
        let usable = unique.filter { address in
            switch address.address.scope {
            case .global: true
            case .unusable: false
            case .loopback, .privateNetwork, .linkLocal: local
            }
        }
        guard let first = usable.first else { return .refused(unique) }
        let leading = usable.filter { $0.address.family == first.address.family }
        let trailing = usable.filter { $0.address.family != first.address.family }
        var ordered: [IPEndpoint] = []
        for index in 0..<max(leading.count, trailing.count) {
            if index < leading.count { ordered.append(leading[index]) }
            if index < trailing.count { ordered.append(trailing[index]) }
        }
        return .use(ordered)
    }
}

import TimeSync

/// The most precise of its schemes a source has answered with: a polled source never steps down.
///
/// A server that answered with `TimeSync-Time` (nonce-checked, to the nanosecond) and then answers
/// with only `Date` is no longer the server that answered before: a cache, a replayed response or
/// another host on the path. Its later responses are refused with
/// `HTTPTimeError.timeHeaderWithdrawn` instead of read from the weaker header. Shared by the copies
/// of a source, so every measurement of it remembers.
package final class HTTPSchemeFloor: Sendable {
    private let best = Locked<Int?>(nil)

    package init() {}

    /// Checks an observation's scheme against the best one the source answered with, and remembers it.
    /// - Parameters:
    ///   - kind: The scheme the response was read by.
    ///   - schemes: The source's schemes, most preferred first.
    ///   - source: The source's name, for the error.
    /// - Throws: `HTTPTimeError.timeHeaderWithdrawn` when an earlier response used a scheme listed
    ///   before this one.
    package func check(_ kind: HTTPTimeScheme.Kind, among schemes: [HTTPTimeScheme.Kind], source: String) throws(HTTPTimeError) {
        let rank = schemes.firstIndex(of: kind) ?? schemes.count
        let withdrawn: Int? = best.withLock { best in
            if let held = best, held < rank { return held }
            best = min(best ?? rank, rank)
            return nil
        }
        if let withdrawn {
            let had = withdrawn < schemes.count ? schemes[withdrawn].rawValue : "?"
            throw HTTPTimeError.timeHeaderWithdrawn.withDetail("\(source) answered by \(had) before, now by \(kind.rawValue)")
        }
    }
}

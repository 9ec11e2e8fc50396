/// Marzullo's algorithm: the region covered by the most intervals.
enum Marzullo {
    /// The result of a selection.
    struct Selection: Equatable {
        /// The region where `count` intervals overlap.
        var region: OffsetInterval
        /// How many intervals cover the region.
        var count: Int
        /// Indices of the intervals that cover the region (the truechimers).
        var members: [Int]
    }

    /// Finds the region covered by the most intervals (the first such region, lowest first).
    /// - Complexity: O(n log n) for n intervals.
    static func select(_ intervals: [OffsetInterval]) -> Selection? {
        guard !intervals.isEmpty else { return nil }
        // Endpoints: starts sort before ends at the same offset, so touching intervals overlap.
        var edges: [(offset: Int64, isStart: Bool)] = []
        edges.reserveCapacity(intervals.count * 2)
        for interval in intervals {
            edges.append((interval.lower, true))
            edges.append((interval.upper, false))
        }
        edges.sort { $0.offset != $1.offset ? $0.offset < $1.offset : ($0.isStart && !$1.isStart) }
        var best = 0
        var current = 0
        var start: Int64 = 0
        var end: Int64 = 0
        for (index, edge) in edges.enumerated() {
            if edge.isStart {
                current += 1
                if current > best {
                    best = current
                    start = edge.offset
                    // The region ends at the next edge (an end, or a start that only adds more).
                    end = edges[index + 1].offset
                }
            } else {
                current -= 1
            }
        }
        let region = OffsetInterval(uncheckedLower: start, upper: max(start, end))
        let members = intervals.indices.filter {
            intervals[$0].lower <= region.lower && region.upper <= intervals[$0].upper
        }
        return Selection(region: region, count: best, members: members)
    }
}

/// The samples of a measurement contradict each other: no strict majority agrees on an offset.
public struct SampleConsensusError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The size of the largest subset that agrees.
    public var largestAgreeing: Int
    /// How many samples there were.
    public var total: Int

    /// Creates the error.
    public init(largestAgreeing: Int, total: Int) {
        self.largestAgreeing = largestAgreeing
        self.total = total
    }

    public var description: String {
        total == 0
            ? "no samples"
            : "samples contradict each other: at most \(largestAgreeing) of \(total) agree, no majority"
    }
}

/// The samples of a measurement contradict each other: no strict majority agrees on an offset.
package struct SampleConsensusError: CodedError {
    /// The kinds of measurement without a consensus.
    package enum Code: Sendable, Hashable {
        /// There was no sample.
        case noSamples
        /// No strict majority of the samples agrees (`SampleConsensusError.largestAgreeing` of
        /// `SampleConsensusError.total`).
        case noMajority
    }

    /// The size of the largest subset that agrees.
    package var largestAgreeing: Int
    /// How many samples there were.
    package var total: Int

    /// Creates the error.
    package init(largestAgreeing: Int, total: Int) {
        self.largestAgreeing = largestAgreeing
        self.total = total
    }

    /// Which kind of failure this is: `.noSamples` when ``total`` is zero.
    package var code: Code { total == 0 ? .noSamples : .noMajority }

    package var description: String {
        total == 0
            ? "no samples"
            : "samples contradict each other: at most \(largestAgreeing) of \(total) agree, no majority"
    }
}

import Testing
import TimeSync

/// Checks that `body` throws an error of `expected`'s type with `expected`'s code, and records an
/// issue at `sourceLocation` otherwise: `#expect(throws:)` for TimeSync's errors, which match by
/// code rather than by `==`.
/// - Parameters:
///   - expected: An error of the kind expected (`NTPReplyError.kissOfDeath`); only its type and
///     code are compared.
///   - comment: What the issue says besides, if one is recorded.
///   - sourceLocation: Where the issue is recorded.
///   - body: The code that should throw.
/// - Returns: The error thrown when it matches, for further checks; `nil` otherwise.
@discardableResult
package func expectThrows<E: TimeSyncError>(
    _ expected: E, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation,
    performing body: () throws -> some Any
) -> E? {
    let outcome: Result<Any, any Error>
    do {
        outcome = .success(try body())
    } catch {
        outcome = .failure(error)
    }
    return check(outcome, expected, comment, sourceLocation)
}

/// Checks that async `body` throws an error of `expected`'s type with `expected`'s code, and records
/// an issue at `sourceLocation` otherwise, as the synchronous `expectThrows` does.
/// - Parameters:
///   - expected: An error of the kind expected (`NTPReplyError.kissOfDeath`); only its type and
///     code are compared.
///   - comment: What the issue says besides, if one is recorded.
///   - isolation: The actor `body` runs on (the caller's).
///   - sourceLocation: Where the issue is recorded.
///   - body: The code that should throw.
/// - Returns: The error thrown when it matches, for further checks; `nil` otherwise.
@discardableResult
package func expectThrows<E: TimeSyncError>(
    _ expected: E, _ comment: Comment? = nil, isolation: isolated (any Actor)? = #isolation,
    sourceLocation: SourceLocation = #_sourceLocation, performing body: () async throws -> some Any
) async -> E? {
    let outcome: Result<Any, any Error>
    do {
        outcome = .success(try await body())
    } catch {
        outcome = .failure(error)
    }
    return check(outcome, expected, comment, sourceLocation)
}

/// The thrown error when it is `expected`'s type and code; records an issue and returns `nil` for
/// anything else.
private func check<E: TimeSyncError>(
    _ outcome: Result<Any, any Error>, _ expected: E, _ comment: Comment?, _ sourceLocation: SourceLocation
) -> E? {
    let wanted = "\(E.self) with code \(expected.code)"
    let problem: String
    switch outcome {
    case .success(let value):
        problem = "expected \(wanted) to be thrown, but the body returned \(value)"
    case .failure(let error as E) where error.code == expected.code:
        return error
    case .failure(let error as E):
        problem = "expected \(wanted) to be thrown, but its code is \(error.code): \(error)"
    case .failure(let error):
        problem = "expected \(wanted) to be thrown, but \(type(of: error)) was: \(error)"
    }
    Issue.record(Comment(rawValue: comment.map { "\(problem) (\($0.rawValue))" } ?? problem), sourceLocation: sourceLocation)
    return nil
}

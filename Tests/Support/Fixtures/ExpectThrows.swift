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
package func expectThrows<E: CodedError>(
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
package func expectThrows<E: CodedError>(
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
private func check<E: CodedError>(
    _ outcome: Result<Any, any Error>, _ expected: E, _ comment: Comment?, _ sourceLocation: SourceLocation
) -> E? {
    let wanted = "\(E.self) with code \(expected.code)"
    let problem: String
    switch outcome {
    case .success(let value):
        problem = "expected \(wanted) to be thrown, but the body returned \(value)"
    case .failure(let error as E) where error.code == expected.code:
        return error
    case .failure(let error as TimeSyncError):
        // The public form of a layer's error: the layer's error is its cause, and the public code
        // must be the one the layer's error maps to.
        guard let inner = error.cause as? E else {
            problem = "expected \(wanted) to be thrown, but TimeSyncError \(error.code) was, caused by \(error.cause.map { "\(type(of: $0))" } ?? "nothing"): \(error)"
            break
        }
        guard inner.code == expected.code else {
            problem = "expected \(wanted) to be thrown, but its code is \(inner.code): \(inner)"
            break
        }
        if let convertible = inner as? any TimeSyncErrorConvertible, convertible.timeSyncError.code != error.code {
            problem = "TimeSyncError's code \(error.code) is not \(inner)'s public code \(convertible.timeSyncError.code)"
            break
        }
        return inner
    case .failure(let error as E):
        problem = "expected \(wanted) to be thrown, but its code is \(error.code): \(error)"
    case .failure(let error):
        problem = "expected \(wanted) to be thrown, but \(type(of: error)) was: \(error)"
    }
    Issue.record(Comment(rawValue: comment.map { "\(problem) (\($0.rawValue))" } ?? problem), sourceLocation: sourceLocation)
    return nil
}

/// A layer's error of type `E`: `error` itself, or the cause of the ``TimeSyncError`` it was thrown as.
package func layerError<E: Error>(_ error: any Error, as type: E.Type) -> E? {
    error as? E ?? (error as? TimeSyncError)?.cause as? E
}

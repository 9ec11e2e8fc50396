#if AsyncHTTPClient
import AsyncHTTPClient
import NIOCore
import Testing
@testable import TimeSyncAsyncHTTPClient

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What HTTPTimeSource makes of the HTTP client's connection errors: one typed error per kind, with
/// the server in its message.
struct HTTPTransportErrorTests {
    @Test(
        "errno of a failed connection gives the kind",
        arguments: [
            (ECONNREFUSED, HTTPTransportError.refused), (EHOSTUNREACH, .unreachable), (ENETUNREACH, .unreachable),
            (ECONNRESET, .connectionClosed), (EMFILE, .network),
        ])
    func errno(_ code: Int32, _ kind: HTTPTransportError) throws {
        let error = try #require(HTTPTransportError.classifying(IOError(errnoCode: code, reason: "connect"), server: "127.0.0.1:9"))
        #expect(error.code == kind.code)
        #expect(error.server == "127.0.0.1:9")
        #expect(error.description.contains("127.0.0.1:9"))
        #expect(!error.description.contains("errno"))
    }

    @Test("a refused connection says nothing accepts connections on the port")
    func refusedMessage() throws {
        let error = try #require(HTTPTransportError.classifying(IOError(errnoCode: ECONNREFUSED, reason: "connect"), server: "[::1]:8080"))
        #expect(error.description == "[::1]:8080 refused the connection: nothing accepts HTTP connections on that port")
    }

    @Test("a closed connection is connectionClosed; errors that are not about the connection are left alone")
    func others() {
        #expect(HTTPTransportError.classifying(HTTPClientError.remoteConnectionClosed, server: "a:1")?.code == .connectionClosed)
        #expect(HTTPTransportError.classifying(HTTPClientError.invalidURL, server: "a:1") == nil)
        #expect(HTTPTransportError.classifying(CancellationError(), server: "a:1") == nil)
    }
}
#endif

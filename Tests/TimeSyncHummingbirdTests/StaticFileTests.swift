#if Hummingbird
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import TimeSync
import TimeSyncHTTP
import TimeSyncHummingbird
import TimeSyncTesting

/// The time server serving files as they are (`timesync serve --http` serves the JavaScript client
/// and its demo page this way), each stamped like any response.
@Suite struct StaticFileTests {
    @Test("a file is served with its type, revalidated, stamped; /time still answers; other paths are 404")
    func filesAreServedAndStamped() async throws {
        let script = TimeSyncHTTPServer.StaticFile(contentType: "text/javascript; charset=utf-8", body: Array("export const x = 1;\n".utf8))
        let page = TimeSyncHTTPServer.StaticFile(contentType: "text/html; charset=utf-8", body: Array("<!doctype html>".utf8))
        let app = TimeSyncHTTPServer.application(
            host: "127.0.0.1", port: 0, timeBase: ManualTimeBase(wall: UnixTime(seconds: 1_763_701_484)),
            files: ["/timesync.js": script, "/": page], logger: Logger(label: "test"))
        try await app.test(.live) { client in
            try await client.execute(uri: "/timesync.js", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/javascript; charset=utf-8")
                #expect(response.headers[.cacheControl] == "no-cache")
                #expect(String(buffer: response.body) == "export const x = 1;\n")
                #expect(response.headers[.timeSyncTime] != nil)
            }
            try await client.execute(uri: "/", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == "<!doctype html>")
            }
            try await client.execute(uri: "/time", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.cacheControl] == "no-store")
            }
            try await client.execute(uri: "/other.js", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(response.headers[.timeSyncTime] != nil, "errors are stamped too")
            }
        }
    }
}
#endif

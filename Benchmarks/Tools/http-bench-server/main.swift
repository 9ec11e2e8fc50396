// The server of the HTTP middleware benchmark (`scripts/bench/http_measure`): one small JSON route, `GET /api`,
// served by Hummingbird with or without `TimestampMiddleware` in front of it, so `wrk` can measure what
// the middleware costs on the same route in the same build.
//
// Usage: http-bench-server [--middleware] [--host 127.0.0.1] [--port 0]
// Prints the bound port on its own line once listening; runs until SIGINT/SIGTERM.
import Foundation
import Hummingbird
import Logging
import TimeSyncHummingbird

/// The `/api` answer: a small JSON object, encoded per request like a real API's.
struct Status: ResponseEncodable, Sendable {
    var service: String
    var healthy: Bool
    var version: Int
    var tags: [String]
}

/// A middleware that does nothing: what any middleware costs in Hummingbird, apart from its work.
struct PassThroughMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try await next(request, context)
    }
}

/// The command line: `--middleware` to add `TimestampMiddleware`, `--responder` to wrap the router in
/// `TimestampResponder` instead, `--pass-through` for a middleware that does nothing; `--host`, `--port`.
struct Options {
    var middleware = false
    var responder = false
    var passThrough = false
    var host = "127.0.0.1"
    var port = 0

    init(_ arguments: [String]) {
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--middleware": middleware = true
            case "--no-middleware": middleware = false
            case "--pass-through": passThrough = true
            case "--responder": responder = true
            case "--host": host = rest.popFirst() ?? host
            case "--port": port = rest.popFirst().flatMap(Int.init) ?? port
            default:
                FileHandle.standardError.write(Data("usage: http-bench-server [--middleware | --responder | --pass-through] [--host H] [--port P]\n".utf8))
                exit(64)
            }
        }
    }
}

let options = Options(Array(CommandLine.arguments.dropFirst()))
let logger = {
    var logger = Logger(label: "http-bench-server")
    logger.logLevel = .warning
    return logger
}()

let router = Router(context: BasicRequestContext.self)
if options.middleware {
    router.add(middleware: TimestampMiddleware())
} else if options.passThrough {
    router.add(middleware: PassThroughMiddleware())
}
let status = Status(service: "timesync-bench", healthy: true, version: 1, tags: ["a", "b", "c"])
router.get("/api") { _, _ in status }

/// Serves `builder`'s responder until SIGINT/SIGTERM, printing the bound port once listening.
func serve<Builder: HTTPResponderBuilder>(_ builder: Builder) async throws
where Builder.Responder.Context: InitializableFromSource<ApplicationRequestContextSource> {
    let app = Application(
        router: builder,
        configuration: .init(address: .hostname(options.host, port: options.port), serverName: nil),
        onServerRunning: { channel in
            FileHandle.standardOutput.write(Data("\(channel.localAddress?.port ?? options.port)\n".utf8))
        },
        logger: logger)
    try await app.runService()
}

if options.responder {
    try await serve(router.timeStamped())
} else {
    try await serve(router)
}

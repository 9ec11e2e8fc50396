// store-writer: saves a calibration through UserDefaultsCalibrationStore and waits to be killed (or
// exits), or restores one: for the tests that a saved calibration survives a killed process, and that
// two processes sharing a suite and a key (an app and its extension in an app group) each restore
// what the other saved.
//
//   store-writer save --suite NAME --key PATH [--offset-ms N] [--exit]
//                                   calibrate (server = wall clock + N ms), save, print "saved", then
//                                   wait forever (or exit with --exit)
//   store-writer restore --suite NAME --key PATH
//                                   print "restored STATUS OFFSET_MS" or "empty"
//
// `--key default` uses the platform's key (`SystemCalibrationKeyProvider`): on Linux the key file
// under `$XDG_DATA_HOME`, one per user's data directory.
//
// The suite lives where the process's UserDefaults keep it (on Linux `$XDG_CONFIG_HOME` or
// `~/.config`): run it with those pointed at a temporary directory.
import Foundation
import TimeSync

func option(_ name: String, _ arguments: [String]) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("store-writer: \(message)\n".utf8))
    exit(2)
}

let arguments = CommandLine.arguments
guard arguments.count > 1, let suite = option("--suite", arguments), let keyPath = option("--key", arguments) else {
    fail("usage: store-writer save|restore --suite NAME --key PATH [--offset-ms N]")
}
guard let store = UserDefaultsCalibrationStore(suiteName: suite) else { fail("cannot open the suite \(suite)") }
let timeBase = SystemTimeBase()
#if !canImport(Darwin) || os(macOS)
let keyProvider: any CalibrationKeyProvider =
    keyPath == "default" ? SystemCalibrationKeyProvider() : FileCalibrationKeyProvider(url: URL(fileURLWithPath: keyPath))
#else
let keyProvider: any CalibrationKeyProvider = SystemCalibrationKeyProvider()  // no key file on iOS, tvOS, watchOS
#endif
let clock = ServerClock(
    timeBase: timeBase, store: store, keyProvider: keyProvider,
    onWarning: { FileHandle.standardError.write(Data("store-writer: \($0)\n".utf8)) })

switch arguments[1] {
case "save":
    let offset = Duration.milliseconds(Int64(option("--offset-ms", arguments) ?? "0") ?? 0)
    let sent = timeBase.monotonicNow()
    let server = timeBase.wallNow().advanced(by: offset)
    let received = timeBase.monotonicNow()
    do {
        clock.calibrate(
            with: try .exchange(
                source: "store-writer", requestSent: sent, serverReceive: server, serverTransmit: server, responseReceived: received))
        try clock.flush()
    } catch {
        fail("\(error)")
    }
    FileHandle.standardOutput.write(Data("saved\n".utf8))
    if arguments.contains("--exit") { exit(0) }
    // Killed here, by PID: nothing after the save may write the suite.
    while true { sleep(60) }
case "restore":
    let reading = clock.reading()
    guard reading.status != .unsynchronized else {
        FileHandle.standardOutput.write(Data("empty\n".utf8))
        exit(0)
    }
    let offset = timeBase.wallNow().nanoseconds.distance(to: reading.serverTime.nanoseconds) / 1_000_000
    FileHandle.standardOutput.write(Data("restored \(reading.status) \(offset)\n".utf8))
default:
    fail("unknown command \(arguments[1])")
}

import ArgumentParser
import Foundation
import TimeSync

@main
struct TimeSyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timesync",
        abstract: "Server time you can trust: query, watch, serve, simulate, demo.",
        subcommands: [Query.self, Watch.self, Serve.self, Simulate.self, Demo.self])
}

/// Encodes a value as pretty JSON with sorted keys.
func jsonString(_ value: some Encodable) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    return String(decoding: try encoder.encode(value), as: UTF8.self)
}

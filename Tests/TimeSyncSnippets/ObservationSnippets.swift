#if CLI && canImport(Observation)
import TimeSync
import TimeSyncObservation

// The Swift blocks of TimeSyncObservation's articles that compile without SwiftUI, as written with the
// imports this file has. `DocumentationSnippetTests` checks the documentation still says exactly this;
// the SwiftUI view (`swiftui-sale-view`) is Apple's only and listed there.

// snippet: observation-model
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@MainActor func makeModel(_ sync: TimeSynchronizer) -> ServerClockModel {
    ServerClockModel(synchronizer: sync)   // status, reading, diagnostics, countdown
}
// end snippet

/// A stand-in for SwiftUI's `Button`, with only what the block below calls.
private struct Button {
    init(_ title: String, action: () -> Void) {}
    @discardableResult func disabled(_ disabled: Bool) -> Button { self }
}

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@MainActor private func swiftUIBuyButton(model: ServerClockModel, saleStart: UnixTime, saleEnd: UnixTime, buy: () -> Void) {
    // snippet: swiftui-buy-button
    Button("Buy") { buy() }
        .disabled(model.reading.position(in: saleStart..<saleEnd) != .within)
    // end snippet
}
#endif

import HTTPTypes
import Hummingbird
import TimeSync
import TimeSyncHTTP

/// Builds a ``TimeStampResponder`` around what another builder builds.
public struct TimeStampResponderBuilder<Base: HTTPResponderBuilder>: HTTPResponderBuilder
where Base.Responder.Context: RequestContext {
    let base: Base
    let timeBase: any TimeBase
    let uncertainty: Duration?

    /// The base's responder, stamped.
    public func buildResponder() -> TimeStampResponder<Base.Responder> {
        TimeStampResponder(base.buildResponder(), timeBase: timeBase, uncertainty: uncertainty)
    }
}

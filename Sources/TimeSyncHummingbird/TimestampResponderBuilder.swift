#if Hummingbird
import HTTPTypes
import Hummingbird
import TimeSync
import TimeSyncHTTP

/// Builds a ``TimestampResponder`` around what another builder builds.
public struct TimestampResponderBuilder<Base: HTTPResponderBuilder>: HTTPResponderBuilder
where Base.Responder.Context: RequestContext {
    let base: Base
    let timeBase: any TimeBase
    let uncertainty: Duration?
    let cors: TimeSyncCORS?

    /// The base's responder, stamped.
    public func buildResponder() -> TimestampResponder<Base.Responder> {
        TimestampResponder(base.buildResponder(), timeBase: timeBase, uncertainty: uncertainty, cors: cors)
    }
}
#endif

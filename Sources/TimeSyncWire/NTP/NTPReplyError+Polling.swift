import TimeSync

/// The one place a Kiss-o'-Death, an unsynchronized server and a raced reply are read for polling,
/// for NTP and for NTS (whose authenticated refusals are NTP's).
extension NTPReplyError {
    /// `RATE` slows this server's polling (to at least the interval its poll field asks for), `DENY`
    /// and `RSTR` stop it, any other kiss is a failure; an unsynchronized server and conflicting
    /// replies say so; everything else is a failure.
    package var pollOutcome: PollOutcome {
        switch code {
        case .kissOfDeath:
            switch (kissCode ?? NTPReferenceID(rawValue: 0)).kissAction {
            case .reducePollRate: .slowDown(interval: .seconds(1 << min(max(Int(kissPoll ?? 0), 0), 17)))
            case .stopUsingServer: .stop
            case .discardReply: .failure
            }
        case .unsynchronized: .unsynchronized
        case .conflictingReplies: .conflicting
        default: .failure
        }
    }

    /// The kiss code (`RATE`, `DENY`, …), for a Kiss-o'-Death.
    public var refusalCode: String? {
        guard code == .kissOfDeath else { return nil }
        return "\(kissCode ?? NTPReferenceID(rawValue: 0))"
    }
}

extension NTSReplyError {
    /// An NTP-level refusal's meaning (an authenticated kiss, an unsynchronized server); a failure
    /// for everything else (an NTS NAK renews the keys at the next poll).
    package var pollOutcome: PollOutcome { ntp?.pollOutcome ?? .failure }

    /// The kiss code of an authenticated Kiss-o'-Death.
    public var refusalCode: String? { ntp?.refusalCode }
}

import TimeSync

extension HTTPTimeScheme {
    /// `TimeSync-Time`: the response header that carries the server's receive and transmit times.
    public static let timeHeaderName = HTTPTimeHeader.name
    /// `TimeSync-Nonce`: the request header whose value the response's `TimeSync-Time` echoes.
    public static let nonceHeaderName = HTTPTimeHeader.nonceName

    /// The `TimeSync-Time` value a server of any framework sends with a response: its wall clock
    /// when the request arrived (read as early as possible) and when the response leaves (as late as
    /// possible), with the request's nonce echoed when it sent a valid one.
    /// - Parameters:
    ///   - serverReceive: The server's time when the request arrived.
    ///   - serverTransmit: The server's time as the response leaves.
    ///   - nonceField: The request's `TimeSync-Nonce` value, if any; an invalid one is not echoed.
    /// - Returns: The field value (`v=1;r=…;t=…;n=…`), or `nil` when `serverTransmit` is before
    ///   `serverReceive` (the clock stepped back: send no header rather than a wrong one).
    public static func timeHeaderValue(serverReceive: UnixTime, serverTransmit: UnixTime, nonceField: String?) -> String? {
        guard serverReceive <= serverTransmit else { return nil }
        let nonce = nonceField.flatMap { HTTPTimeNonce.parse($0) }
        return HTTPTimeHeader(serverReceive: serverReceive, serverTransmit: serverTransmit, nonce: nonce).fieldValue
    }
}

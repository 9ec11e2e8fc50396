/// Whether a URLSession request brings up a network path that UDP on BSD sockets does not.
///
/// On iOS, tvOS, watchOS and visionOS an idle cellular radio or a VPN On Demand connection comes up
/// for URLSession (and Network framework) connections, not for a datagram sent on a BSD socket: POSIX
/// networking does not activate the cellular radio (Apple's Networking Programming Topics, "Using
/// Sockets and Socket Streams"; the same holds for VPN On Demand). A synchronizer there
/// asks its HTTPS fallback sources at once when it starts and when the app comes to the foreground,
/// instead of after the NTP sources' silence.
enum NetworkActivation {
    static let httpsWakesTheNetwork: Bool = {
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        true
        #else
        false
        #endif
    }()
}

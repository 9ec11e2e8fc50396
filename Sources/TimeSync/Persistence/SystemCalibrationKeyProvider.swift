import Foundation

/// Where the key that seals the store is kept: by default the Keychain on Apple platforms, a private
/// file on Linux (`$XDG_DATA_HOME/timesync/keys/calibration.key`, or
/// `~/.local/share/timesync/keys/calibration.key`); or a key file you name (``init(keyFile:)``, macOS
/// and Linux).
///
/// On macOS a process the data protection Keychain refuses (a command-line tool signed without a
/// keychain entitlement) keeps its key in a private file instead,
/// `~/Library/Application Support/TimeSync/keys/calibration.key`.
///
/// A key file is checked as OpenSSH's `StrictModes` checks a key: a regular file owned by this
/// process's user, mode 0600, at least 32 bytes, on a path whose every directory from `/` down belongs
/// to that user or root and is writable by neither group nor others (unless sticky, as `/tmp` is).
/// Anything else is refused with a ``TimeSyncError`` that says what to fix, and nothing is created.
///
/// On Linux the key file is only as safe as the user account: anyone who can read the account's
/// files can forge a store. That is weaker than the Keychain, and still stops a store copied from
/// elsewhere or edited by someone without access to the key file.
///
/// **App groups.** An app and its extensions (a widget, a share extension) that share a store in an
/// app group (`UserDefaultsCalibrationStore(suiteName: "group.com.example.app")`) must share its key
/// too: each process's default Keychain access group is its own, so each would make a key of its
/// own and reject the other's store. Pass the app group as the access group, in every process:
/// `SystemCalibrationKeyProvider(accessGroup: "group.com.example.app")`. Each target needs the App
/// Groups capability with that group (the `com.apple.security.application-groups` entitlement);
/// the Keychain takes an app group as an access group. On macOS a process the data protection
/// Keychain refuses keeps the key in the group's container instead (`TimeSync/keys/calibration.key`
/// under `FileManager.containerURL(forSecurityApplicationGroupIdentifier:)`). On Linux the key
/// file is shared by every process of the user already.
public struct SystemCalibrationKeyProvider: CalibrationKeyProvider {
    /// The Keychain access group the key lives in (an app group, or a keychain access group),
    /// `nil` for the process's default.
    public let accessGroup: String?
    /// The key file used instead of the platform's place, if one was named.
    public let keyFile: URL?

    /// Creates the platform's provider.
    /// - Parameter accessGroup: The access group to keep the key in, shared by every process that
    ///   reads the same store; `nil` (the default) for the process's own.
    public init(accessGroup: String? = nil) {
        self.accessGroup = accessGroup
        keyFile = nil
    }

    #if !canImport(Darwin) || os(macOS)
    /// A provider that keeps the key in the file at `url` (made with mode 0600, its directories 0700,
    /// when missing), for a server or a tool whose key lives at a path of its own.
    public init(keyFile url: URL) {
        accessGroup = nil
        keyFile = url
    }
    #endif

    public func key() throws(TimeSyncError) -> [UInt8] {
        return try TimeSyncError.converting(otherwise: .keyUnavailable) {
            #if !canImport(Darwin) || os(macOS)
            if let keyFile { return try FileCalibrationKeyProvider(url: keyFile).key() }
            #endif
            #if canImport(Security)
            switch KeychainCalibrationKeyProvider(accessGroup: accessGroup).keyOrStatus() {
            case .success(let key):
                return key
            case .failure(let failure):
                #if os(macOS)
                if failure.isMissingEntitlement {
                    let url = accessGroup.flatMap(FileCalibrationKeyProvider.appGroupURL) ?? FileCalibrationKeyProvider.defaultURL
                    return try FileCalibrationKeyProvider(url: url).key()
                }
                #endif
                throw failure.error
            }
            #else
            return try FileCalibrationKeyProvider(url: FileCalibrationKeyProvider.defaultURL).key()
            #endif
        }
    }
}

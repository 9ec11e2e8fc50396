import Foundation

/// The platform's place for the key: the Keychain on Apple platforms
/// (`KeychainCalibrationKeyProvider`), a private file on Linux (`FileCalibrationKeyProvider` at
/// `FileCalibrationKeyProvider.defaultURL`).
///
/// On macOS a process the data protection Keychain refuses (a command-line tool signed without a
/// keychain entitlement) keeps its key in the private file at `FileCalibrationKeyProvider.defaultURL`
/// instead.
///
/// On Linux the key file is only as safe as the user account: anyone who can read the account's
/// files can forge a store. That is weaker than the Keychain, and still stops a store copied from
/// elsewhere or edited by someone without access to the key file.
public struct SystemCalibrationKeyProvider: CalibrationKeyProvider {
    /// Creates the platform's provider.
    public init() {}

    public func key() throws -> [UInt8] {
        #if canImport(Security)
        switch KeychainCalibrationKeyProvider().keyOrStatus() {
        case .success(let key):
            return key
        case .failure(let failure):
            #if os(macOS)
            if failure.isMissingEntitlement {
                return try FileCalibrationKeyProvider(url: FileCalibrationKeyProvider.defaultURL).key()
            }
            #endif
            throw failure.error
        }
        #else
        try FileCalibrationKeyProvider(url: FileCalibrationKeyProvider.defaultURL).key()
        #endif
    }
}

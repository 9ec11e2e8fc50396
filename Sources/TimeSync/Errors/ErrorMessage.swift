import Foundation

/// One line for people about any error a source's measurement threw: a TimeSync error's message; for
/// a Foundation error (`URLError`, an `NSError` from the system) its localized description with its
/// domain and code, never the raw dictionary dump `NSError` prints on Linux.
package enum ErrorMessage {
    package static func of(_ error: any Error) -> String {
        if let error = error as? any CodedError { return error.description }
        if let error = error as? URLError {
            let url = error.failingURL.map { " (\($0.absoluteString))" } ?? ""
            return "\(error.localizedDescription)\(url) [URLError \(error.code.rawValue)]"
        }
        if type(of: error) is NSError.Type {
            let error = error as NSError
            return "\(error.localizedDescription) [\(error.domain) \(error.code)]"
        }
        return String(describing: error)
    }
}

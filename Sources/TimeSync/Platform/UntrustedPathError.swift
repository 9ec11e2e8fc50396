#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A directory or symbolic link on the way to a key or a store that someone other than this
/// process's user and root controls: whoever controls it could move or replace what lies beneath it
/// and so send the file somewhere of their choosing. The file is neither read nor created.
///
/// Every component of the path is checked, from `/` down to the file, as OpenSSH's `StrictModes`
/// checks a key's path: each directory must belong to this process's user or to root and be writable
/// by neither its group nor others, unless it is sticky (as `/tmp` is, mode 1777: there others
/// cannot rename or remove what is not theirs). A symbolic link must belong to this process's user or
/// to root, and what it points to is checked the same way.
///
/// Match on ``code``; ``component``, ``owner`` and ``mode`` say which component and why, and the
/// message says what to do.
package struct UntrustedPathError: CodedError {
    /// The kinds of untrusted component.
    package enum Code: Sendable, Hashable {
        /// A directory or symbolic link belongs to a user other than this process's user and root.
        case ownedByAnotherUser
        /// A directory its group or others can write, without the sticky bit.
        case writableByOthers
        /// A component that must be a directory (the directory that holds the file) is something else.
        case notADirectory
        /// A component cannot be inspected, or a symbolic link cannot be read (the system's reason).
        case uninspectable(String)
        /// More symbolic links than the system follows in one path (a loop, most likely).
        case tooManyLinks
    }

    /// Which kind of failure this is.
    package let code: Code
    /// The file or directory that was to be reached.
    package let path: String
    /// The component refused, with every symbolic link before it resolved.
    package let component: String
    /// The component's owner (a user ID), when it could be inspected.
    package let owner: UInt32?
    /// The component's permission bits (sticky bit included), when it could be inspected.
    package let mode: UInt32?
    /// Whether the component is a symbolic link.
    package let isSymbolicLink: Bool

    init(_ code: Code, path: String, component: String, owner: UInt32? = nil, mode: UInt32? = nil, isSymbolicLink: Bool = false) {
        self.code = code
        self.path = path
        self.component = component
        self.owner = owner
        self.mode = mode
        self.isSymbolicLink = isSymbolicLink
    }

    package var description: String {
        let kind = isSymbolicLink ? "the symbolic link" : "the directory"
        let modeText = mode.map { String($0 & 0o7777, radix: 8) } ?? "?"
        let ownerText = owner.map(String.init) ?? "?"
        let user = geteuid()
        let beneath = component == path ? "" : " and so redirect \(path)"
        switch code {
        case .ownedByAnotherUser:
            let fix =
                isSymbolicLink
                ? "remove it, or give it to this user or to root (chown -h \(user) \(component))"
                : "give it to this user or to root (chown \(user) \(component)), or keep the file on a path only this user and root control"
            return
                "\(kind) \(component) belongs to user \(ownerText), neither this process's user \(user) nor root, with mode \(modeText): that user could \(isSymbolicLink ? "point it elsewhere" : "replace what it holds")\(beneath); \(fix)"
        case .writableByOthers:
            return
                "\(kind) \(component), owned by user \(ownerText), is writable by other users (mode \(modeText)) and is not sticky: they could rename what it holds\(beneath); make it writable by its owner alone (chmod go-w \(component))"
        case .notADirectory:
            return "\(component) is not a directory; give the path of a directory"
        case .uninspectable(let reason):
            return "cannot inspect \(component) on the way to \(path): \(reason); check its permissions, or keep the file elsewhere"
        case .tooManyLinks:
            return "\(path) passes through too many symbolic links (a loop?) at \(component); give a path without the loop"
        }
    }
}

extension UntrustedPathError: TimeSyncErrorConvertible {
    package var timeSyncError: TimeSyncError { TimeSyncError(.untrustedPath, description, cause: self) }
}

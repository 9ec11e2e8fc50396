#if !CLI
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Built without the package's `CLI` trait, the command has none of its dependencies: it says how
/// to build it.
@main
enum TimeSyncWithoutCLITrait {
    static func main() {
        let message = """
            timesync was built without the package's CLI trait, which brings its servers and argument parsing.
            Help: build or run it with the trait: swift run --traits CLI timesync demo

            """
        // Standard error by its descriptor: the C `stderr` global is shared mutable state to Swift 6.
        message.utf8CString.withUnsafeBufferPointer { bytes in
            _ = write(2, bytes.baseAddress, bytes.count - 1)
        }
        exit(64)
    }
}
#endif

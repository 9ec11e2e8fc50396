#if NTS
internal import CCryptoBoringSSL

/// Fills `buffer` with bytes from BoringSSL's generator (seeded from the operating system's, with a
/// generator per thread): as strong as `SystemRandomNumberGenerator`, without a system call per nonce.
func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) {
    guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
    // RAND_bytes always succeeds: BoringSSL aborts rather than return bytes it could not make.
    _ = CCryptoBoringSSL_RAND_bytes(base.assumingMemoryBound(to: UInt8.self), buffer.count)
}
#endif

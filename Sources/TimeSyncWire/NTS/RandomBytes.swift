extension RandomNumberGenerator {
    /// `count` random bytes, eight from each 64-bit value (one call to the system's generator per
    /// eight bytes, not one per byte).
    package mutating func bytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var index = 0
        while index < count {
            var value = next()
            for _ in 0..<min(8, count - index) {
                bytes[index] = UInt8(truncatingIfNeeded: value)
                value >>= 8
                index += 1
            }
        }
        return bytes
    }
}

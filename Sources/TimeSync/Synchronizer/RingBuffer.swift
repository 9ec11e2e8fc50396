/// The latest elements appended, at most ``capacity`` of them: appending to a full buffer drops the
/// oldest. Sans-IO, O(1) per append.
package struct RingBuffer<Element: Sendable & Hashable>: Sendable, Hashable {
    /// The most elements kept (at least 1).
    package let capacity: Int
    private var storage: [Element] = []
    /// Where the oldest element is, once the buffer is full.
    private var head = 0

    /// An empty buffer keeping at most `capacity` elements (at least 1).
    package init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Appends an element, dropping the oldest when the buffer is full.
    /// - Complexity: O(1) amortized.
    package mutating func append(_ element: Element) {
        if storage.count < capacity {
            storage.append(element)
        } else {
            storage[head] = element
            head = (head + 1) % capacity
        }
    }

    /// The elements, oldest first.
    /// - Complexity: O(n).
    package var elements: [Element] { Array(storage[head...] + storage[..<head]) }

    /// The most recent element, if any.
    package var last: Element? { storage.isEmpty ? nil : storage[(head + storage.count - 1) % storage.count] }
}

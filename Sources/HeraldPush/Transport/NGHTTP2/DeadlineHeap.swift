/// The loop's requests by deadline, nearest first: a binary min-heap whose members know their
/// index, so a request that finishes early leaves it in O(log n).
struct DeadlineHeap {
    private var items: [PendingRequest] = []

    var isEmpty: Bool { items.isEmpty }

    /// The nearest deadline.
    var first: PendingRequest? { items.first }

    mutating func insert(_ request: PendingRequest) {
        precondition(request.heapIndex < 0, "a request is in the deadline heap twice")
        request.heapIndex = items.count
        items.append(request)
        siftUp(items.count - 1)
    }

    /// Takes `request` out; nothing when it is not in.
    mutating func remove(_ request: PendingRequest) {
        let index = request.heapIndex
        guard index >= 0 else { return }
        request.heapIndex = -1
        let last = items.removeLast()
        guard index < items.count else { return }
        items[index] = last
        last.heapIndex = index
        siftDown(index)
        siftUp(last.heapIndex)
    }

    private mutating func siftUp(_ start: Int) {
        var index = start
        while index > 0 {
            let parent = (index - 1) / 2
            guard items[index].deadline < items[parent].deadline else { return }
            swapAt(index, parent)
            index = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var index = start
        while true {
            let left = 2 * index + 1
            guard left < items.count else { return }
            let right = left + 1
            let smaller = right < items.count && items[right].deadline < items[left].deadline ? right : left
            guard items[smaller].deadline < items[index].deadline else { return }
            swapAt(index, smaller)
            index = smaller
        }
    }

    private mutating func swapAt(_ a: Int, _ b: Int) {
        items.swapAt(a, b)
        items[a].heapIndex = a
        items[b].heapIndex = b
    }
}

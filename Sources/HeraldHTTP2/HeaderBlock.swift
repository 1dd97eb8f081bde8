import CNGHTTP2

/// The fields of one header block, names and values back to back in one buffer: built on the
/// caller's thread, handed to nghttp2 (which copies them) without a copy per field.
package struct HeaderBlock: Sendable {
    private var bytes: [UInt8] = []
    /// Per field: name offset, name length, value offset, value length in `bytes`.
    private var bounds: [Int] = []

    package init(capacity fields: Int = 8) {
        bytes.reserveCapacity(fields * 48)
        bounds.reserveCapacity(fields * 4)
    }

    package var count: Int { bounds.count / 4 }

    /// Adds one field. Concrete `String`s: a generic `some Sequence<UInt8>` here was called
    /// unspecialized from the push client's module, 4% of `herald serve`'s CPU per push.
    package mutating func append(_ name: String, _ value: String) {
        let nameStart = bytes.count
        bytes.append(contentsOf: name.utf8)
        let valueStart = bytes.count
        bytes.append(contentsOf: value.utf8)
        bounds.append(nameStart)
        bounds.append(valueStart - nameStart)
        bounds.append(valueStart)
        bounds.append(bytes.count - valueStart)
    }

    /// Calls `body` with the block as `nghttp2_nv`s, built in `scratch` (kept by the caller to
    /// spare an allocation per block); nil when the block is empty.
    func withFields<Result>(
        in scratch: inout [nghttp2_nv], _ body: (UnsafePointer<nghttp2_nv>?, Int) -> Result
    ) -> Result {
        scratch.removeAll(keepingCapacity: true)
        return bytes.withUnsafeBufferPointer { block in
            guard let base = block.baseAddress else { return body(nil, 0) }
            let start = UnsafeMutablePointer(mutating: base)
            for index in stride(from: 0, to: bounds.count, by: 4) {
                scratch.append(
                    nghttp2_nv(
                        name: start + bounds[index], value: start + bounds[index + 2], namelen: bounds[index + 1],
                        valuelen: bounds[index + 3], flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)))
            }
            return scratch.withUnsafeBufferPointer { body($0.baseAddress, $0.count) }
        }
    }
}

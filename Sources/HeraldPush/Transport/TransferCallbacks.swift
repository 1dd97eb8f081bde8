import CCurl

/// libcurl's header callback: one line of the response head for the `Transfer` in `context`.
let transferHeaderCallback: curl_write_callback = { buffer, size, count, context in
    guard let buffer, let context else { return 0 }
    let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    buffer.withMemoryRebound(to: UInt8.self, capacity: length) {
        transfer.receivedHeaderLine(UnsafeBufferPointer(start: $0, count: length))
    }
    return length
}

/// libcurl's write callback: a piece of the response body for the `Transfer` in `context`.
let transferBodyCallback: curl_write_callback = { buffer, size, count, context in
    guard let buffer, let context else { return 0 }
    let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    buffer.withMemoryRebound(to: UInt8.self, capacity: length) {
        transfer.receivedBody(UnsafeBufferPointer(start: $0, count: length))
    }
    return length
}

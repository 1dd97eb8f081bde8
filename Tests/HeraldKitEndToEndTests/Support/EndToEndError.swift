/// Why the end-to-end harness could not do its part.
enum EndToEndError: Error, CustomStringConvertible {
    case commandFailed(String)
    case timedOut(String)
    case socket(String)

    var description: String {
        switch self {
        case .commandFailed(let message): message
        case .timedOut(let what): "timed out waiting for \(what)"
        case .socket(let message): message
        }
    }
}

/// One header field of a request or a response. HTTP/2 sends names in lowercase: names that
/// arrive are lowercase, and the push client and the sandbox lower-case the names they send.
public struct HTTP2Header: Sendable, Equatable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    /// Whether the field is named `wanted`, in any ASCII case.
    public func hasName(_ wanted: String) -> Bool {
        // Names arrive lowercase and are asked for in lowercase: equal at once, nearly always.
        if name == wanted { return true }
        guard name.utf8.count == wanted.utf8.count else { return false }
        return name.utf8.elementsEqual(wanted.utf8) { Self.lowercase($0) == Self.lowercase($1) }
    }

    /// The name in ASCII lowercase, as it goes on the wire; no copy when it already is.
    package var lowercasedName: String {
        guard name.utf8.contains(where: Self.isUppercase) else { return name }
        return String(decoding: name.utf8.map(Self.lowercase), as: UTF8.self)
    }

    private static func isUppercase(_ byte: UInt8) -> Bool { byte >= 0x41 && byte <= 0x5A }

    private static func lowercase(_ byte: UInt8) -> UInt8 { isUppercase(byte) ? byte + 0x20 : byte }
}

extension [HTTP2Header] {
    /// The first value of the field `name` (any ASCII case), if present.
    package func first(named name: String) -> String? {
        first { $0.hasName(name) }?.value
    }
}

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// An app version such as `1.10.0` or `2.0.0-beta.2`, ordered as Semantic Versioning 2.0
/// orders them: numerically by part (`1.10.0 > 1.9.9`), a pre-release below its release.
///
/// One to three numeric parts are accepted and missing ones are zero, so `1.7` equals
/// `1.7.0`. Build metadata (`+42`) is kept for display and ignored by comparison.
/// Leading zeros, empty parts, signs, spaces and a `v` prefix are refused.
public struct SemanticVersion: Sendable, Hashable, Comparable, LosslessStringConvertible, Codable {
    public var major: Int
    public var minor: Int
    public var patch: Int
    /// Dot-separated pre-release identifiers (`beta`, `2` of `-beta.2`); empty for a release.
    public var prerelease: [String]
    /// Dot-separated build identifiers; never compared.
    public var build: [String]

    public init(major: Int, minor: Int = 0, patch: Int = 0, prerelease: [String] = [], build: [String] = []) {
        precondition(major >= 0 && minor >= 0 && patch >= 0, "version parts must not be negative")
        self.major = major
        self.minor = minor
        self.patch = patch
        self.prerelease = prerelease
        self.build = build
    }

    public init?(_ description: String) {
        guard !description.isEmpty, description.utf8.count <= 256 else { return nil }
        var rest = Substring(description)
        var build: [String] = []
        if let plus = rest.firstIndex(of: "+") {
            let parts = rest[rest.index(after: plus)...].split(separator: ".", omittingEmptySubsequences: false)
            guard parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy(SemanticVersion.isIdentifierByte) }) else {
                return nil
            }
            build = parts.map(String.init)
            rest = rest[..<plus]
        }
        var prerelease: [String] = []
        if let dash = rest.firstIndex(of: "-") {
            let parts = rest[rest.index(after: dash)...].split(separator: ".", omittingEmptySubsequences: false)
            for part in parts {
                guard !part.isEmpty, part.utf8.allSatisfy(SemanticVersion.isIdentifierByte) else { return nil }
                if SemanticVersion.isNumeric(part), part.count > 1, part.first == "0" { return nil }
            }
            prerelease = parts.map(String.init)
            rest = rest[..<dash]
        }
        let core = rest.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...3).contains(core.count) else { return nil }
        var numbers: [Int] = []
        for part in core {
            guard !part.isEmpty, part.count <= 18, SemanticVersion.isNumeric(part),
                part.count == 1 || part.first != "0",
                let value = Int(part)
            else { return nil }
            numbers.append(value)
        }
        while numbers.count < 3 { numbers.append(0) }
        self.init(major: numbers[0], minor: numbers[1], patch: numbers[2], prerelease: prerelease, build: build)
    }

    public var description: String {
        var text = "\(major).\(minor).\(patch)"
        if !prerelease.isEmpty { text += "-" + prerelease.joined(separator: ".") }
        if !build.isEmpty { text += "+" + build.joined(separator: ".") }
        return text
    }

    /// Equal when they order the same: build metadata does not count.
    public static func == (lhs: SemanticVersion, rhs: SemanticVersion) -> Bool {
        lhs.major == rhs.major && lhs.minor == rhs.minor && lhs.patch == rhs.patch && lhs.prerelease == rhs.prerelease
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(major)
        hasher.combine(minor)
        hasher.combine(patch)
        hasher.combine(prerelease)
    }

    public static func < (lhs: SemanticVersion, rhs: SemanticVersion) -> Bool {
        if lhs.major != rhs.major { return lhs.major < rhs.major }
        if lhs.minor != rhs.minor { return lhs.minor < rhs.minor }
        if lhs.patch != rhs.patch { return lhs.patch < rhs.patch }
        switch (lhs.prerelease.isEmpty, rhs.prerelease.isEmpty) {
        case (true, true), (true, false): return false
        case (false, true): return true
        case (false, false): break
        }
        for (left, right) in zip(lhs.prerelease, rhs.prerelease) where left != right {
            switch (isNumeric(Substring(left)), isNumeric(Substring(right))) {
            case (true, true):
                // Compare as numbers of any length: shorter is smaller, then by digits.
                return left.count != right.count ? left.count < right.count : left < right
            case (true, false): return true
            case (false, true): return false
            case (false, false): return left < right
            }
        }
        return lhs.prerelease.count < rhs.prerelease.count
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let version = SemanticVersion(text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "'\(text)' is not a version such as 1.7.0.")
        }
        self = version
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    private static func isIdentifierByte(_ byte: UInt8) -> Bool {
        Check.isASCIIAlnum(byte) || byte == UInt8(ascii: "-")
    }

    private static func isNumeric(_ part: Substring) -> Bool {
        !part.isEmpty && part.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }
}

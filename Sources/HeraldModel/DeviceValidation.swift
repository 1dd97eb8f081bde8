#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension DeviceRegistration {
    /// The token as stored and compared: APNs hex is lowercased (devices and SDKs differ in
    /// case); FCM and Expo tokens are case-sensitive and kept as sent.
    public var normalizedToken: String {
        provider == .apns ? token.lowercased() : token
    }

    /// This registration with ``normalizedToken``.
    public func normalized() -> DeviceRegistration {
        var copy = self
        copy.token = normalizedToken
        return copy
    }

    /// Checks the token's shape for its provider, that the provider serves the platform,
    /// and the optional app version, locale, time zone and app id.
    public func validate() throws {
        try DeviceRegistration.validateToken(token, provider: provider)
        if provider == .apns, platform != .ios {
            throw ValidationError.invalid("provider", "apns serves only platform ios; use fcm or expo for android.")
        }
        if let appVersion {
            try Check.requiredText(appVersion, "appVersion", max: Limits.appVersionMaxLength)
            if Check.hasControl(appVersion) {
                throw ValidationError.invalid("appVersion", "must not contain control characters.")
            }
        }
        if let locale {
            if locale.isEmpty { throw ValidationError.required("locale") }
            try Check.maxLength(locale, "locale", Limits.localeMaxLength)
            let ok = locale.utf8.allSatisfy {
                Check.isASCIIAlnum($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
            }
            if !ok { throw ValidationError.invalid("locale", "must be a language tag such as en-US or nl_NL.") }
        }
        if let timeZone { try Check.timeZone(timeZone, "timeZone") }
        if let appId { try DeviceRegistration.validateAppID(appId, field: "appId") }
    }

    /// Checks one token's shape: APNs 64 to 200 hex digits; FCM 1 to 4,096 of
    /// `A-Z a-z 0-9 _ : - .`; Expo `ExponentPushToken[...]` or `ExpoPushToken[...]` with
    /// 1 to 256 characters inside.
    public static func validateToken(_ token: String, provider: PushProvider) throws {
        if token.isEmpty { throw ValidationError.required("token") }
        switch provider {
        case .apns:
            let bytes = token.utf8
            let hex = bytes.allSatisfy { byte in
                (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                    || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f"))
                    || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "F"))
            }
            guard hex, (Limits.apnsTokenMinLength...Limits.apnsTokenMaxLength).contains(bytes.count) else {
                throw ValidationError.invalid(
                    "token",
                    "is not an APNs device token: expected \(Limits.apnsTokenMinLength) to \(Limits.apnsTokenMaxLength) hexadecimal digits."
                )
            }
        case .fcm:
            if token.utf8.count > Limits.fcmTokenMaxLength {
                throw ValidationError.tooLong("token", max: Limits.fcmTokenMaxLength)
            }
            let ok = token.utf8.allSatisfy { byte in
                Check.isASCIIAlnum(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":")
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            }
            if !ok {
                throw ValidationError.invalid(
                    "token", "is not an FCM registration token: use only letters, digits and _ : - . with no spaces.")
            }
        case .expo:
            let inner: Substring?
            if token.hasPrefix("ExponentPushToken["), token.hasSuffix("]") {
                inner = token.dropFirst("ExponentPushToken[".count).dropLast()
            } else if token.hasPrefix("ExpoPushToken["), token.hasSuffix("]") {
                inner = token.dropFirst("ExpoPushToken[".count).dropLast()
            } else {
                inner = nil
            }
            guard let inner, !inner.isEmpty, inner.count <= Limits.expoTokenInnerMaxLength,
                !Check.hasSpaceOrControl(String(inner)), !inner.contains("["), !inner.contains("]")
            else {
                throw ValidationError.invalid(
                    "token",
                    "is not an Expo push token: expected ExponentPushToken[...] or ExpoPushToken[...] with 1 to \(Limits.expoTokenInnerMaxLength) characters inside."
                )
            }
        }
    }

    /// An app id: 1 to ``Limits/appIDMaxLength`` of lowercase letters, digits, `.`, `_` and `-`,
    /// starting with a letter or digit (`default`, `shop-ios`, `com.example.shop`).
    public static func validateAppID(_ id: String, field: String) throws {
        try Check.requiredText(id, field, max: Limits.appIDMaxLength)
        let bytes = Array(id.utf8)
        let allowed = bytes.allSatisfy {
            ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9"))
                || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-")
        }
        guard allowed, let first = bytes.first, first != UInt8(ascii: "."), first != UInt8(ascii: "_"),
            first != UInt8(ascii: "-")
        else {
            throw ValidationError.invalid(
                field, "must be lowercase letters, digits, '.', '_' and '-', starting with a letter or digit.")
        }
    }
}

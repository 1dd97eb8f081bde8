import Foundation

extension AppConfigDocument {
    /// Install sources that mean "installed from Google Play" (the installer package name,
    /// or the SDK's own spelling).
    public static let playStoreInstallSources: Set<String> = ["play_store", "com.android.vending"]

    /// The update prompt for one installed app, or `nil` when there is no policy for
    /// `platform` or no installer info (UPDATE-01: the app shows nothing).
    ///
    /// - `.store` for an Android install from anywhere but Google Play when the policy's
    ///   `sideloadPrompt` is on; it wins over a version update (UPDATE-03).
    /// - `.version` when `version` is below `minimumVersion` (UPDATE-02). A missing or
    ///   unreadable installed version cannot be compared and does not prompt.
    /// - `.none` otherwise.
    ///
    /// No decision is ever forced: every kind can be dismissed by the app (UPDATE-04).
    public func decision(platform: DevicePlatform, version: String?, installSource: String?) -> UpdateDecision? {
        let policy: PlatformUpdatePolicy?
        switch platform {
        case .ios: policy = update?.ios
        case .android: policy = update?.android
        }
        guard let policy, let installSource, !installSource.isEmpty else { return nil }
        func decided(_ kind: UpdateDecision.Kind) -> UpdateDecision {
            UpdateDecision(kind: kind, minimumVersion: policy.minimumVersion, storeURL: policy.storeURL)
        }
        if platform == .android, policy.sideloadPrompt == true,
            !AppConfigDocument.playStoreInstallSources.contains(installSource.lowercased())
        {
            return decided(.store)
        }
        if let minimum = policy.minimumVersion.flatMap(SemanticVersion.init),
            let installed = version.flatMap(SemanticVersion.init), installed < minimum
        {
            return decided(.version)
        }
        return decided(.none)
    }

    /// Checks what a publisher stores: versions parse, store URLs are absolute URLs that
    /// do not run code, at most ``Limits/allowedPrefixesMax`` deep-link prefixes of at most
    /// ``Limits/allowedPrefixMaxLength``, and a valid catalog.
    public func validate() throws {
        for (name, policy) in [("ios", update?.ios), ("android", update?.android)] {
            guard let policy else { continue }
            let field = "update.\(name)"
            if let minimum = policy.minimumVersion, SemanticVersion(minimum) == nil {
                throw ValidationError.invalid("\(field).minimumVersion", "must be a version such as 1.7.0.")
            }
            if let storeURL = policy.storeURL {
                try Check.link(storeURL, "\(field).storeURL", max: Limits.urlMaxLength)
                if Check.isAppPath(storeURL) {
                    throw ValidationError.invalid(
                        "\(field).storeURL", "must be an absolute store URL, such as https://apps.apple.com/app/id123.")
                }
            }
            if name == "ios", policy.sideloadPrompt == true {
                throw ValidationError.invalid("\(field).sideloadPrompt", "applies to android only.")
            }
        }
        if let prefixes = deepLinks?.allowedPrefixes {
            if prefixes.count > Limits.allowedPrefixesMax {
                throw ValidationError.tooMany(
                    "deepLinks.allowedPrefixes", max: Limits.allowedPrefixesMax, what: "prefixes")
            }
            for (index, prefix) in prefixes.enumerated() {
                let field = "deepLinks.allowedPrefixes[\(index)]"
                try Check.requiredText(prefix, field, max: Limits.allowedPrefixMaxLength)
                if Check.hasSpaceOrControl(prefix) {
                    throw ValidationError.invalid(field, "must not contain spaces or control characters.")
                }
                if let scheme = Check.scheme(of: prefix), Check.forbiddenSchemes.contains(scheme) {
                    throw ValidationError.invalid(field, "must not allow \(scheme): links.")
                }
            }
        }
        try catalog?.validate(field: "catalog")
    }
}

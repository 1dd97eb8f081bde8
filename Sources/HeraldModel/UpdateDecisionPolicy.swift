#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

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
        try validateAttention()
    }

    /// Frequency caps name known categories other than account (never capped), once each, with
    /// `max` at least 1 and a period of 1 second to 30 days; digest categories are known, not account;
    /// the digest template has a title and fits a push.
    func validateAttention() throws {
        let known = Set((catalog ?? .standard).categories.map(\.id))
        func checkCategory(_ id: String, _ field: String) throws {
            guard known.contains(id) else {
                throw ValidationError(
                    field: field, code: "unknown_category",
                    message: "\(field) '\(id.prefix(64))' is not a category of the catalog.")
            }
            if id == Catalog.accountCategoryID {
                throw ValidationError(
                    field: field, code: "not_configurable",
                    message: "\(field): account messages are never capped or held for a digest.")
            }
        }
        if let caps = frequencyCaps {
            if caps.count > Limits.frequencyCapsMax {
                throw ValidationError.tooMany("frequencyCaps", max: Limits.frequencyCapsMax, what: "caps")
            }
            var seen: Set<String> = []
            for (index, cap) in caps.enumerated() {
                let field = "frequencyCaps[\(index)]"
                try checkCategory(cap.category, "\(field).category")
                guard seen.insert(cap.category).inserted else {
                    throw ValidationError(
                        field: "\(field).category", code: "duplicate",
                        message: "\(field).category '\(cap.category)' has another cap already.")
                }
                guard (1...Limits.frequencyCapMax).contains(cap.max) else {
                    throw ValidationError(
                        field: "\(field).max", code: "out_of_range",
                        message: "\(field).max must be from 1 to \(Limits.frequencyCapMax).")
                }
                guard (1...Limits.frequencyCapPeriodMaxSeconds).contains(cap.periodSeconds) else {
                    throw ValidationError(
                        field: "\(field).periodSeconds", code: "out_of_range",
                        message:
                            "\(field).periodSeconds must be from 1 to \(Limits.frequencyCapPeriodMaxSeconds) (30 days)."
                    )
                }
            }
        }
        if let categories = digestCategories {
            for (index, id) in categories.enumerated() { try checkCategory(id, "digestCategories[\(index)]") }
        }
        if let template = digestTemplate {
            try Check.requiredText(template.title, "digestTemplate.title", max: Limits.titleMaxLength)
            try Check.maxLength(template.body, "digestTemplate.body", Limits.bodyMaxLength)
        }
    }
}

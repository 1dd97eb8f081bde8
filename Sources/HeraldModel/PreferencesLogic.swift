#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Preferences {
    /// What a user who never touched their preferences has (STORE-01): push on, the OS
    /// decision unknown, every category that can be opted out of enabled, nothing disabled,
    /// no quiet hours.
    public static func defaults(catalog: Catalog) -> Preferences {
        Preferences(
            globalEnabled: true, osPermissionGranted: nil,
            categories: Dictionary(
                catalog.optOutCategoryIDs.map { ($0, true) }, uniquingKeysWith: { first, _ in first }),
            disabledTypes: [], quietHours: nil
        )
    }

    /// These preferences as the app should see them: every opt-out-able category of `catalog`
    /// listed (missing ones as enabled). Stored values are never dropped, even for categories
    /// the catalog no longer has, except categories that cannot be opted out of (account),
    /// which are never listed.
    public func filled(catalog: Catalog) -> Preferences {
        var copy = self
        for id in catalog.optOutCategoryIDs where copy.categories[id] == nil {
            copy.categories[id] = true
        }
        for category in catalog.categories where !category.canOptOut {
            copy.categories[category.id] = nil
        }
        copy.categories[Catalog.accountCategoryID] = nil
        return copy
    }

    /// `patch` merged in: named fields replace, `categories` merge key by key, everything
    /// the patch does not name is kept (PREFS-11); `disabledTypes` lose duplicates.
    public func applying(_ patch: PreferencesPatch) -> Preferences {
        var copy = self
        if let globalEnabled = patch.globalEnabled { copy.globalEnabled = globalEnabled }
        if let categories = patch.categories {
            copy.categories.merge(categories) { _, new in new }
        }
        if let disabledTypes = patch.disabledTypes {
            var seen: Set<String> = []
            copy.disabledTypes = disabledTypes.filter { seen.insert($0).inserted }
        }
        if let quietHours = patch.quietHours { copy.quietHours = quietHours }
        if let snoozedUntil = patch.snoozedUntil { copy.snoozedUntil = snoozedUntil }
        if let digest = patch.digest { copy.digest = digest }
        if let mutedSources = patch.mutedSources {
            var seen: Set<String> = []
            copy.mutedSources = mutedSources.filter { seen.insert($0).inserted }
        }
        if let timeZone = patch.timeZone { copy.timeZone = timeZone }
        return copy
    }

    /// The OS answered the permission dialog (STORE-03): the decision is recorded and the
    /// global switch follows it.
    public func recording(decision granted: Bool) -> Preferences {
        var copy = self
        copy.osPermissionGranted = granted
        copy.globalEnabled = granted
        return copy
    }

    /// Start-up sync with the permission the OS reports; `nil` when nothing should be
    /// written.
    ///
    /// | stored decision | OS now | result |
    /// |---|---|---|
    /// | never asked (`nil`) | any | `nil`: no sync, the switch keeps its value (SYNC-03) |
    /// | granted | denied | switch off, decision `false` (SYNC-01) |
    /// | denied | granted | switch on, decision `true` (SYNC-02) |
    /// | granted | granted | `nil`: nothing changed outside the app; a switch the user turned off in the app stays off |
    /// | denied | denied | `nil`: already in step |
    /// | granted or denied | undetermined | the decision is forgotten (`nil`, so the app may ask again, e.g. after a reinstall or a permission reset); the switch is left as it is and follows the next decision |
    public func syncing(status: PermissionStatus) -> Preferences? {
        guard let stored = osPermissionGranted else { return nil }
        var copy = self
        switch (stored, status) {
        case (true, .denied):
            copy.globalEnabled = false
            copy.osPermissionGranted = false
        case (false, .granted):
            copy.globalEnabled = true
            copy.osPermissionGranted = true
        case (_, .undetermined):
            copy.osPermissionGranted = nil
        case (true, .granted), (false, .denied):
            return nil
        }
        return copy == self ? nil : copy
    }
}

extension PreferencesPatch {
    /// Checks the patch against `catalog`: categories must exist (`unknown_category`) and be
    /// ones the user may switch off (`not_configurable`: the account category, PREFS-06);
    /// at most ``Limits/disabledTypesMax`` disabled types, each a valid type; valid quiet hours.
    /// The snooze at `now`: at most ``Limits/snoozeMaxSeconds`` ahead (a time gone by is no snooze).
    public func validateSnooze(now: Date) throws {
        guard case .some(.some(let until)) = snoozedUntil else { return }
        if until.timeIntervalSince(now) > Double(Limits.snoozeMaxSeconds) {
            throw ValidationError(
                field: "snoozedUntil", code: "out_of_range",
                message: "snoozedUntil must be at most \(Limits.snoozeMaxSeconds / 86_400) days ahead.")
        }
    }

    public func validate(catalog: Catalog) throws {
        if let categories {
            for id in categories.keys.sorted() {
                let field = "categories.\(id.count > 64 ? String(id.prefix(64)) + "…" : id)"
                guard let category = catalog.category(id: id) else {
                    throw ValidationError(
                        field: field, code: "unknown_category",
                        message:
                            "\(field) is not a notification category; known categories are \(catalog.optOutCategoryIDs.joined(separator: ", "))."
                    )
                }
                if !category.canOptOut {
                    throw ValidationError(
                        field: field, code: "not_configurable",
                        message: "\(field) cannot be switched off: \(category.chip) messages are always sent.")
                }
            }
        }
        if let disabledTypes {
            if disabledTypes.count > Limits.disabledTypesMax {
                throw ValidationError.tooMany("disabledTypes", max: Limits.disabledTypesMax, what: "types")
            }
            for (index, type) in disabledTypes.enumerated() {
                try Check.type(type, "disabledTypes[\(index)]")
            }
        }
        if case .some(.some(let window)) = quietHours {
            try window.validate(field: "quietHours")
        }
        if case .some(.some(let digest)) = digest, QuietHours.minutes(digest.localTime) == nil {
            throw ValidationError.invalid("digest.localTime", "must be a time as HH:mm, from 00:00 to 23:59.")
        }
        if let mutedSources {
            if mutedSources.count > Limits.mutedSourcesMax {
                throw ValidationError.tooMany("mutedSources", max: Limits.mutedSourcesMax, what: "sources")
            }
            for (index, id) in mutedSources.enumerated() {
                try Check.sourceID(id, "mutedSources[\(index)]")
            }
        }
        if case .some(.some(let zone)) = timeZone {
            try Check.timeZone(zone, "timeZone")
        }
    }
}

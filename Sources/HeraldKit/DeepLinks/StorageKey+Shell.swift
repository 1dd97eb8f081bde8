extension StorageKey {
    /// The route to reopen at the cold start after a language reload (LINK-03).
    public static let languageReloadRoute = "herald.shell.languageReloadRoute"
    /// When the version update prompt was last dismissed (UPDATE-04), seconds since 1970.
    public static let versionUpdateDismissedAt = "herald.update.versionDismissedAt"
    /// When the Play Store prompt was last dismissed (UPDATE-04), seconds since 1970.
    public static let storeUpdateDismissedAt = "herald.update.storeDismissedAt"
}

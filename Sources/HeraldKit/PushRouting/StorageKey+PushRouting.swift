extension StorageKey {
    /// The notification id of the last push tap routed, so a cold-launch tap is not replayed
    /// on the next launch (PUSH-10).
    public static let handledPushNotificationId = "herald.push.handledNotificationId"
}

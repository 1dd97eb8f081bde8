/// Every side effect HeraldKit's models perform, in one value an app builds once and hands to
/// each model. Tests build it from fakes.
public struct HeraldDependencies: Sendable {
    public var api: HeraldAPI
    public var permission: NotificationPermissionClient
    public var pushToken: PushTokenClient
    public var settings: SettingsOpener
    public var navigator: Navigator
    public var analytics: AnalyticsClient
    public var storage: KeyValueStore
    public var clock: HeraldClock
    public var platform: PlatformFacts

    public init(
        api: HeraldAPI, permission: NotificationPermissionClient, pushToken: PushTokenClient,
        settings: SettingsOpener, navigator: Navigator, analytics: AnalyticsClient, storage: KeyValueStore,
        clock: HeraldClock, platform: PlatformFacts
    ) {
        self.api = api
        self.permission = permission
        self.pushToken = pushToken
        self.settings = settings
        self.navigator = navigator
        self.analytics = analytics
        self.storage = storage
        self.clock = clock
        self.platform = platform
    }
}

import HeraldModel

extension DeviceRegistration {
    /// The registration of `token` for this device: the token's provider and environment,
    /// and the platform, app version, locale, time zone and app id of `platform` (PUSH-04).
    init(token: PushToken, platform: PlatformFacts) {
        self.init(
            token: token.value, provider: token.provider, platform: platform.platform, environment: token.environment,
            appVersion: platform.appVersion, locale: platform.locale, timeZone: platform.timeZone,
            appId: platform.appId)
    }
}

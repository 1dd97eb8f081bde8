import HeraldModel

extension NotificationDestination {
    /// Where a tapped push leads: the rules of an inbox row tap (TAP-01, TAP-02, TAP-04), so a
    /// push and its inbox row always open the same screen.
    public init(tap: PushTap, catalog: Catalog, allowedPrefixes: [String]) {
        self = .resolve(
            type: tap.type, data: tap.data, deepLink: tap.deepLink, hasDetail: tap.hasDetail, id: tap.notificationId,
            allowedPrefixes: allowedPrefixes, catalog: catalog)
    }
}

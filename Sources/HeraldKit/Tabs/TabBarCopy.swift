/// The tab labels, from the tab bar's exits in `spec/app-shell-screen-map.txt`.
public enum TabBarCopy {
    public static let home = "Home"
    public static let shop = "Shop"
    public static let bag = "My Bag"
    public static let loyalty = "Loyalty"
    public static let profile = "Profile"
    /// A count above ``TabBarModel/badgeCap`` (TABS-01, TABS-02).
    public static let cappedBadge = "99+"
}

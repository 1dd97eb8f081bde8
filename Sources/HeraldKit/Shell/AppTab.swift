/// The five tabs of the tab bar, for guests and members alike.
public enum AppTab: String, Sendable, Equatable, CaseIterable {
    case home, shop, bag, loyalty, profile

    /// The tab's root path. Home's is `/home`: the bare `/` redirects to it (ROOT-01).
    /// Loyalty's is the catalog's `/loyalty`. Written for HeraldKit: the others.
    public var path: String {
        switch self {
        case .home: "/home"
        case .shop: "/shop"
        case .bag: "/bag"
        case .loyalty: "/loyalty"
        case .profile: "/profile"
        }
    }

    /// The tab's label.
    public var title: String {
        switch self {
        case .home: TabBarCopy.home
        case .shop: TabBarCopy.shop
        case .bag: TabBarCopy.bag
        case .loyalty: TabBarCopy.loyalty
        case .profile: TabBarCopy.profile
        }
    }
}

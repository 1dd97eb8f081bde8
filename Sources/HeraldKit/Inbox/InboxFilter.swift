/// Which notifications the inbox lists: all of them, or one catalog category.
public enum InboxFilter: Sendable, Hashable {
    /// Every notification, including types without a category (INBOX-10).
    case all
    /// One catalog category, by id (`orders`).
    case category(String)
}

/// A filter chip above the list.
public struct InboxChip: Sendable, Equatable, Identifiable {
    public var filter: InboxFilter
    /// The label, such as `All` or `Orders`.
    public var title: String
    public var isSelected: Bool

    public var id: InboxFilter { filter }

    public init(filter: InboxFilter, title: String, isSelected: Bool) {
        self.filter = filter
        self.title = title
        self.isSelected = isSelected
    }
}

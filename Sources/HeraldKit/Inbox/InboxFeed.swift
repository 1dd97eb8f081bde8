import HeraldModel

/// The notifications the inbox has loaded, newest first, the cursor of the next page, and the
/// rows hidden while their delete is pending. Pure data: the model decides when it changes.
struct InboxFeed: Equatable {
    /// Every loaded notification of every type, newest first; never a hidden (`admin.*`) type.
    private(set) var items: [InboxNotification] = []
    /// The cursor of the next older page; `nil` once the last page is loaded.
    private(set) var nextCursor: String?
    /// Whether a first page has arrived.
    private(set) var hasLoaded = false
    /// Rows hidden while their delete is pending or running (DEL-01).
    var hiddenIDs: Set<String> = []

    /// Starts over from a first page.
    mutating func replace(with page: NotificationPage, catalog: Catalog) {
        items = page.items.filter { !catalog.isHidden(type: $0.type) }
        nextCursor = page.nextCursor
        hasLoaded = true
    }

    /// Adds an older page below what is loaded, skipping rows already there.
    mutating func append(_ page: NotificationPage, catalog: Catalog) {
        let known = Set(items.map(\.id))
        items += page.items.filter { !known.contains($0.id) && !catalog.isHidden(type: $0.type) }
        nextCursor = page.nextCursor
    }

    /// Puts a new notification on top, unless it is already loaded or never shown.
    mutating func insert(_ notification: InboxNotification, catalog: Catalog) {
        guard !catalog.isHidden(type: notification.type), !items.contains(where: { $0.id == notification.id })
        else { return }
        items.insert(notification, at: 0)
    }

    /// Applies a read or seen change made here or on another device.
    mutating func apply(_ change: NotificationChange) {
        guard let index = items.firstIndex(where: { $0.id == change.id }) else { return }
        items[index].readAt = change.readAt ?? items[index].readAt
        items[index].seenAt = change.seenAt ?? items[index].seenAt
    }

    /// Forgets a deleted notification.
    mutating func remove(id: String) {
        items.removeAll { $0.id == id }
        hiddenIDs.remove(id)
    }

    /// The loaded notifications a person can see (not hidden by a pending delete).
    var visibleItems: [InboxNotification] {
        items.filter { !hiddenIDs.contains($0.id) }
    }

    /// The visible notifications `filter` lets through; the filter runs here, on the client,
    /// over pages of every type (INBOX-13). Types without a category show under All only (INBOX-10).
    func matches(_ filter: InboxFilter, catalog: Catalog) -> [InboxNotification] {
        switch filter {
        case .all: visibleItems
        case .category(let id): visibleItems.filter { catalog.category(forType: $0.type) == id }
        }
    }

    /// The visible notification with this id.
    func visibleItem(id: String) -> InboxNotification? {
        hiddenIDs.contains(id) ? nil : items.first { $0.id == id }
    }
}

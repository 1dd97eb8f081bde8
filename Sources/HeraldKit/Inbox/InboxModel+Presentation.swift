import HeraldModel

extension InboxModel {
    /// What fills the screen, derived from what is loaded, the filter and the load in progress.
    public var content: InboxContent {
        guard isSignedIn else { return .empty(.signInRequired) }
        guard feed.hasLoaded else {
            return phase == .failed ? .empty(.loadFailed) : .skeleton(rows: Self.skeletonRowCount)
        }
        let matches = feed.matches(filter, catalog: catalog)
        if !matches.isEmpty { return .list(matches.map(row)) }
        if feed.visibleItems.isEmpty, feed.nextCursor == nil { return .empty(.allCaughtUp) }
        if phase == .failed { return .empty(.loadFailed) }
        let isLoading = phase == .loadingFirstPage || phase == .loadingMore
        switch filter {
        case .all:
            // Every loaded row was deleted and older pages are on their way.
            return .skeleton(rows: Self.skeletonRowCount)
        case .category:
            return isLoading ? .empty(.lookingForMore) : .empty(.noneInCategory)
        }
    }

    /// The rows on screen, newest first; empty unless ``content`` is a list.
    public var rows: [InboxRow] {
        if case .list(let rows) = content { rows } else { [] }
    }

    /// The chips: All, then one per catalog category in catalog order. Hidden (empty) until
    /// something loaded and when there are no notifications at all (INBOX-04); they stay over an
    /// empty category (INBOX-05).
    public var chips: [InboxChip] {
        guard feed.hasLoaded else { return [] }
        switch content {
        case .skeleton, .empty(.signInRequired), .empty(.allCaughtUp):
            return []
        case .list, .empty:
            let filters =
                [(InboxFilter.all, InboxCopy.allChip)]
                + catalog.categories.map { (InboxFilter.category($0.id), $0.chip) }
            return filters.map { InboxChip(filter: $0.0, title: $0.1, isSelected: $0.0 == filter) }
        }
    }

    /// The spinner under the last row while the next page loads (INBOX-07).
    public var showsFooterSpinner: Bool {
        phase == .loadingMore && !rows.isEmpty
    }

    private func row(_ item: InboxNotification) -> InboxRow {
        let isUnread = item.readAt == nil
        let label = ((isUnread ? [InboxCopy.unreadAccessibilityPrefix] : []) + [item.title, item.body])
            .joined(separator: ", ")
        return InboxRow(
            id: item.id, type: item.type, title: item.title, body: item.body, createdAt: item.createdAt,
            showsUnreadDot: isUnread, destination: destination(of: item), accessibilityLabel: label,
            accessibilityActions: [AccessibilityActionState(name: InboxCopy.deleteAction)])
    }
}

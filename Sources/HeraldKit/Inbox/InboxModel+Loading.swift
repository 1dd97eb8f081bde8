import HeraldModel

extension InboxModel {
    /// Loads the newest page, replacing what is loaded. Skeleton rows show while nothing is
    /// loaded yet; rows already on screen stay until the page lands.
    func loadFirstPage() {
        phase = .loadingFirstPage
        startLoad(cursor: nil) { model, page in
            model.feed.replace(with: page, catalog: model.catalog)
            model.markAllSeenOncePerVisit()
        }
    }

    /// Loads the page after the last loaded one.
    func loadNextPage() {
        guard let cursor = feed.nextCursor else { return }
        phase = .loadingMore
        startLoad(cursor: cursor) { model, page in model.feed.append(page, catalog: model.catalog) }
    }

    /// Pulls the next page when the list has too little to show: a category with fewer than
    /// 10 matches while fewer than 120 rows are loaded (INBOX-12, INBOX-13), or All with no
    /// visible row at all (every loaded row deleted).
    func loadMoreIfFilterWantsIt() {
        guard isVisible, isSignedIn, phase == .idle, feed.hasLoaded, feed.nextCursor != nil else { return }
        let wantsMore =
            switch filter {
            case .all:
                feed.visibleItems.isEmpty
            case .category:
                feed.matches(filter, catalog: catalog).count < Self.minimumFilterMatches
                    && feed.items.count < Self.filterAutoLoadRowLimit
            }
        if wantsMore { loadNextPage() }
    }

    /// Stops any load; its answer will be dropped.
    func abandonLoad() {
        loadTask?.cancel()
        loadTask = nil
        loadGeneration += 1
        heldEvents = []
        if phase == .loadingFirstPage || phase == .loadingMore { phase = .idle }
    }

    /// Fetches one page of every type (the filter runs on the client) under the load deadline.
    private func startLoad(cursor: String?, landed: @escaping @MainActor (InboxModel, NotificationPage) -> Void) {
        loadTask?.cancel()
        loadGeneration += 1
        let generation = loadGeneration
        let api = dependencies.api
        loadTask = Task { [weak self, clock = dependencies.clock] in
            let outcome: Result<NotificationPage, any Error>
            do {
                outcome = .success(
                    try await withLoadDeadline(Self.loadTimeout, clock: clock) {
                        try await api.notifications(cursor, nil, Self.pageSize)
                    })
            } catch {
                outcome = .failure(error)
            }
            guard let self, generation == loadGeneration else { return }
            loadEnded(outcome, landed: landed)
        }
    }

    private func loadEnded(
        _ outcome: Result<NotificationPage, any Error>, landed: (InboxModel, NotificationPage) -> Void
    ) {
        loadTask = nil
        switch outcome {
        case .success(let page):
            landed(self, page)
            counts = Counts(unread: page.unreadCount, unseen: page.unseenCount)
            phase = .idle
        case .failure(let error as HeraldAPIError) where error.kind == .unauthenticated:
            sessionEnded()
            return
        case .failure:
            phase = .failed
        }
        let held = heldEvents
        heldEvents = []
        for event in held { applyLiveEvent(event) }
        loadMoreIfFilterWantsIt()
    }

    /// The badge drops to 0 once per visit, after the first page shows; the dots stay (INBOX-08).
    private func markAllSeenOncePerVisit() {
        guard isVisible, !hasMarkedSeenThisVisit else { return }
        hasMarkedSeenThisVisit = true
        let api = dependencies.api
        Task { [weak self] in
            // A failure leaves the badge as it is; the next visit tries again.
            guard let counts = try? await api.markAllSeen() else { return }
            self?.counts = counts
        }
    }
}

extension InboxModel {
    /// Follows `GET /v1/me/stream` while the screen is visible: the list updates itself, so
    /// there is no pull to refresh (INBOX-15).
    func subscribeToLiveEvents() {
        liveTask?.cancel()
        let events = dependencies.api.liveEvents()
        liveTask = Task { [weak self] in
            do {
                for try await event in events { self?.received(event) }
            } catch let error as HeraldAPIError where error.kind == .unauthenticated {
                self?.sessionEnded()
            } catch {
                // The live client reconnects by itself; a stream that still ends leaves the list as it is.
            }
        }
    }

    private func received(_ event: LiveEvent) {
        switch event {
        case .counts(let counts):
            self.counts = counts
        case .reset:
            loadFirstPage()
        case .created, .updated:
            // A page in flight may predate the event: apply it once the page lands.
            if phase == .loadingFirstPage || phase == .loadingMore {
                heldEvents.append(event)
            } else {
                applyLiveEvent(event)
            }
        }
    }

    /// A new notification goes on top; a change updates its row; a delete (made anywhere)
    /// removes it, ending any pending delete of it.
    func applyLiveEvent(_ event: LiveEvent) {
        switch event {
        case .created(let notification):
            feed.insert(notification, catalog: catalog)
        case .updated(let change) where change.deleted:
            forgetPendingDelete(id: change.id)
            feed.remove(id: change.id)
            loadMoreIfFilterWantsIt()
        case .updated(let change):
            feed.apply(change)
        case .counts, .reset:
            break
        }
    }
}

extension InboxModel {
    /// The row was swiped away: it hides at once, with a 4 s undo toast (DEL-01).
    public func rowSwiped(id: String) {
        delete(id: id)
    }

    /// The row's Delete accessibility action: the same as the swipe (INBOX-14).
    public func deleteActionInvoked(id: String) {
        delete(id: id)
    }

    /// The undo toast was tapped: the last deleted row comes back in place and its delete never
    /// runs (DEL-01).
    public func undoTapped() {
        guard let id = undoID, let pending = takePendingDelete(id: id) else { return }
        pending.timer.cancel()
        feed.hiddenIDs.remove(id)
        undoID = nil
        toastSlot.dismiss()
    }

    /// Hides the row and schedules its delete. Each pending delete keeps its own 4 s; the toast
    /// always offers to undo the latest.
    private func delete(id: String) {
        guard feed.visibleItem(id: id) != nil else { return }
        feed.hiddenIDs.insert(id)
        undoID = id
        toastSlot.show(
            Toast(
                kind: .success, title: InboxCopy.deletedToastTitle, message: InboxCopy.deletedToastMessage,
                duration: Self.undoWindow, isTappable: true))
        let clock = dependencies.clock
        let timer = Task { [weak self] in
            guard (try? await clock.sleep(Self.undoWindow)) != nil else { return }
            self?.runDelete(id: id)
        }
        pendingDeletes.append(PendingDelete(id: id, timer: timer))
    }

    /// Removes and answers the pending delete of `id`.
    private func takePendingDelete(id: String) -> PendingDelete? {
        guard let index = pendingDeletes.firstIndex(where: { $0.id == id }) else { return nil }
        return pendingDeletes.remove(at: index)
    }

    /// Leaving the screen runs every pending delete now; nothing is left to undo (DEL-03).
    func flushPendingDeletes() {
        for pending in pendingDeletes {
            pending.timer.cancel()
            runDelete(id: pending.id)
        }
    }

    /// A delete made elsewhere ends the pending one here: no call, no undo.
    func forgetPendingDelete(id: String) {
        takePendingDelete(id: id)?.timer.cancel()
        if undoID == id {
            undoID = nil
            toastSlot.dismiss()
        }
    }

    /// Calls the API; the row stays hidden meanwhile. On failure it comes back with a danger
    /// toast (DEL-02). A 404 means it is already gone, so the row goes too. The call runs even
    /// if the model goes; its outcome shows only in the session that made it.
    private func runDelete(id: String) {
        _ = takePendingDelete(id: id)
        if undoID == id {
            undoID = nil
            toastSlot.dismiss()
        }
        let api = dependencies.api
        let session = sessionGeneration
        Task { [weak self] in
            let isDone: Bool
            do {
                try await api.delete(id)
                isDone = true
            } catch let error as HeraldAPIError where error.kind == .notFound {
                isDone = true
            } catch {
                isDone = false
            }
            guard let self, session == sessionGeneration else { return }
            if isDone { feed.remove(id: id) } else { deleteFailed(id: id) }
            loadMoreIfFilterWantsIt()
        }
    }

    private func deleteFailed(id: String) {
        feed.hiddenIDs.remove(id)
        // The danger toast replaces any undo toast, so nothing is left to undo.
        undoID = nil
        toastSlot.show(Toast(kind: .danger, title: InboxCopy.deleteFailedToastTitle))
    }

}

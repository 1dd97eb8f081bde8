import Foundation
import HeraldKit
import HeraldKitTestSupport
import HeraldModel
import Testing

@Suite("Fake inbox backend keeps the server's rules")
@MainActor struct FakeInboxBackendTests {
    @Test("pages are newest first under an opaque cursor, limit 1...100")
    func paging() async throws {
        let backend = FakeInboxBackend(notifications(5))
        let api = backend.api()
        let first = try await api.notifications(nil, nil, 2)
        #expect(first.items.map(\.id) == ["n1", "n2"])
        let second = try await api.notifications(first.nextCursor, nil, 2)
        #expect(second.items.map(\.id) == ["n3", "n4"])
        let last = try await api.notifications(second.nextCursor, nil, 2)
        #expect(last.items.map(\.id) == ["n5"])
        #expect(last.nextCursor == nil)
        #expect(try await api.notifications("", nil, 100).items.count == 5)

        for limit in [0, 101] {
            await #expect(throws: HeraldAPIError.self) { try await api.notifications(nil, nil, limit) }
        }
        do {
            _ = try await api.notifications("not-a-cursor", nil, 20)
            Issue.record("a bad cursor was accepted")
        } catch let error as HeraldAPIError {
            #expect(error.kind == .rejected && error.status == 400 && error.code == "invalid_cursor")
        }
    }

    @Test("the category filter uses the catalog; unknown categories are refused")
    func categoryFilter() async throws {
        let backend = FakeInboxBackend(notifications(4) { $0.isMultiple(of: 2) ? "promo.sale" : "order.shipped" })
        let api = backend.api()
        #expect(try await api.notifications(nil, "promotions", 20).items.map(\.id) == ["n2", "n4"])
        #expect(
            try await api.notifications(nil, "promotions", 20).items.map(\.category) == ["promotions", "promotions"])
        #expect(try await api.notifications(nil, "all", 20).items.count == 4)
        do {
            _ = try await api.notifications(nil, "secret", 20)
            Issue.record("an unknown category was accepted")
        } catch let error as HeraldAPIError {
            #expect(error.code == "unknown_category")
        }
    }

    @Test("INBOX-11 admin rows are never listed, counted or found")
    func adminHidden() async throws {
        let backend = FakeInboxBackend([notification("adm", type: "admin.audit"), notification("a", age: 1)])
        let api = backend.api()
        #expect(try await api.notifications(nil, nil, 20).items.map(\.id) == ["a"])
        #expect(backend.counts == Counts(unread: 1, unseen: 1))
        for call in [
            { _ = try await api.notification("adm") }, { _ = try await api.markRead("adm") },
            { _ = try await api.markOpened("adm") }, { try await api.delete("adm") },
        ] {
            do {
                try await call()
                Issue.record("an admin row was reachable")
            } catch let error as HeraldAPIError {
                #expect(error.kind == .notFound)
            }
        }
    }

    @Test("another user's rows are never listed, counted or changed, and their ids answer a missing id's 404")
    func otherUsersRows() async throws {
        let backend = FakeInboxBackend([notification("mine", age: 1)])
        backend.publish(notification("theirs"), to: "someone-else")
        let api = backend.api()
        #expect(backend.user == "me")
        #expect(backend.stored(id: "theirs") != nil)
        #expect(try await api.notifications(nil, nil, 20).items.map(\.id) == ["mine"])
        #expect(backend.counts == Counts(unread: 1, unseen: 1))
        _ = try await api.markAllSeen()
        #expect(backend.stored(id: "theirs")?.seenAt == nil)

        func answer(_ call: () async throws -> Void) async -> HeraldAPIError? {
            do {
                try await call()
                return nil
            } catch {
                return error as? HeraldAPIError
            }
        }
        let missing = await answer { _ = try await api.notification("missing") }
        #expect(missing?.kind == .notFound)
        for call in [
            { _ = try await api.notification("theirs") }, { _ = try await api.markRead("theirs") },
            { _ = try await api.markOpened("theirs") }, { try await api.delete("theirs") },
        ] {
            #expect(await answer(call) == missing)
        }
        #expect(backend.stored(id: "theirs")?.readAt == nil)
        #expect(backend.openedAt(id: "theirs") == nil)
        #expect(!backend.isDeleted(id: "theirs"))
    }

    @Test("read, open and delete are idempotent; a deleted row is a 404 everywhere else")
    func idempotentChanges() async throws {
        let clock = TestClock()
        let backend = FakeInboxBackend(
            [notification("a", detail: NotificationDetail(html: "<p>x</p>"))], now: { clock.now })
        let api = backend.api()
        let listed = try await api.notifications(nil, nil, 20).items
        #expect(listed.first?.hasDetail == true)
        #expect(listed.first?.detail == nil)
        #expect(try await api.notification("a").detail?.html == "<p>x</p>")

        let first = try await api.markRead("a")
        let second = try await api.markRead("a")
        #expect(first.readAt != nil && first.readAt == second.readAt)
        #expect(backend.counts == Counts(unread: 0, unseen: 0))

        let opened = try await api.markOpened("a")
        await clock.advance(by: .seconds(30))
        #expect(try await api.markOpened("a") == opened, "the first open is kept")
        #expect(opened == NotificationOpened(id: "a", openedAt: Date(timeIntervalSince1970: 1_800_000_000)))
        #expect(backend.openedAt(id: "a") == opened.openedAt)

        try await api.delete("a")
        try await api.delete("a")
        #expect(backend.isDeleted(id: "a"))
        #expect(try await api.notifications(nil, nil, 20).items.isEmpty)
        await #expect(throws: HeraldAPIError.notFound("No such notification.")) { try await api.notification("a") }
        await #expect(throws: HeraldAPIError.notFound("No such notification.")) { try await api.markRead("a") }
        await #expect(throws: HeraldAPIError.notFound("No such notification.")) { try await api.markOpened("a") }
    }

    @Test("mark all seen drops the badge and keeps the dots")
    func markAllSeen() async throws {
        let backend = FakeInboxBackend(notifications(3))
        let counts = try await backend.api().markAllSeen()
        #expect(counts == Counts(unread: 3, unseen: 0))
        #expect(backend.calls == [.markAllSeen])
    }

    @Test("open streams get counts on open and the events of every change")
    func liveEvents() async throws {
        let backend = FakeInboxBackend([notification("a", age: 1)])
        let api = backend.api()
        var events = api.liveEvents().makeAsyncIterator()
        var event = try await events.next(isolation: #isolation)
        #expect(event == .counts(Counts(unread: 1, unseen: 1)))
        backend.publish(notification("b"))
        event = try await events.next(isolation: #isolation)
        // Listed as the server lists it: the category comes from the catalog.
        var created = notification("b")
        created.category = "orders"
        #expect(event == .created(created))
        event = try await events.next(isolation: #isolation)
        #expect(event == .counts(Counts(unread: 2, unseen: 2)))
        _ = try await api.markRead("b")
        event = try await events.next(isolation: #isolation)
        guard case .updated(let change) = event else {
            Issue.record("no updated event")
            return
        }
        #expect(change.id == "b" && change.readAt != nil && !change.deleted)
        event = try await events.next(isolation: #isolation)
        #expect(event == .counts(Counts(unread: 1, unseen: 1)))
        backend.endStreams(throwing: .unauthenticated())
        do {
            _ = try await events.next(isolation: #isolation)
            Issue.record("the stream did not end with an error")
        } catch let error as HeraldAPIError {
            #expect(error.kind == .unauthenticated)
        }
    }

    @Test("a scripted call hangs until released, and a cancelled one stops hanging")
    func hangingCalls() async throws {
        let backend = FakeInboxBackend([notification("a")])
        let api = backend.api()
        backend.script(.counts, .hang)
        backend.script(.counts, .hang)
        let released = Task { try await api.counts() }
        let cancelled = Task { try await api.counts() }
        await Task.yield()
        await Task.yield()
        #expect(backend.hangingCount(.counts) == 2)
        backend.release(.counts)
        #expect(try await released.value == Counts(unread: 1, unseen: 1))
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(backend.hangingCount(.counts) == 0)
    }
}

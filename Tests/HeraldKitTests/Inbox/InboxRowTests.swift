import HeraldKit
import HeraldKitTestSupport
import HeraldModel
import Testing

@Suite("Inbox: rows, dots, destinations and accessibility")
@MainActor struct InboxRowTests {
    @Test("INBOX-08 mark-all-as-read fires once per visit while each unread dot stays until its row is tapped")
    func badgeOncePerVisitDotsUntilTapped() async {
        let inbox = InboxHarness([
            notification("a", age: 1, data: ["orderId": "1"]), notification("b", age: 2),
            notification("c", age: 3, read: true),
        ])
        await inbox.appear()
        #expect(inbox.backend.calls(to: .markAllSeen).count == 1)
        #expect(inbox.backend.counts == Counts(unread: 2, unseen: 0))
        #expect(inbox.model.counts == Counts(unread: 2, unseen: 0))
        #expect(inbox.model.rows.map(\.showsUnreadDot) == [true, true, false])

        inbox.model.rowTapped(id: "a")
        #expect(inbox.model.rows.map(\.showsUnreadDot) == [false, true, false])
        await inbox.clock.settle()
        #expect(inbox.backend.calls(to: .markRead) == [.markRead(id: "a")])
        #expect(inbox.navigator.openedPaths == ["/orders/1"])
        #expect(inbox.model.rows.map(\.showsUnreadDot) == [false, true, false])

        // Still the same visit: no second mark-all.
        inbox.model.endReached()
        inbox.backend.publish(notification("d"))
        await inbox.clock.settle()
        #expect(inbox.backend.calls(to: .markAllSeen).count == 1)

        // A new visit marks all seen again.
        inbox.model.disappeared()
        await inbox.appear()
        #expect(inbox.backend.calls(to: .markAllSeen).count == 2)
        #expect(inbox.model.rows.map(\.showsUnreadDot) == [true, false, true, false])
    }

    @Test("INBOX-08 tapping a read row does not mark it again")
    func readRowIsNotMarkedAgain() async {
        let inbox = InboxHarness([notification("a", read: true)])
        await inbox.appear()
        inbox.model.rowTapped(id: "a")
        await inbox.clock.settle()
        #expect(inbox.backend.calls(to: .markRead).isEmpty)
        #expect(inbox.navigator.openedPaths == ["/orders"])
    }

    @Test("INBOX-09 a general row shows no chevron and tapping it does nothing")
    func generalRowHasNoDestination() async {
        let inbox = InboxHarness([
            notification("g", type: "general.notice"), notification("u", type: "mystery", age: 1),
        ])
        await inbox.appear()
        #expect(inbox.model.rows.map(\.showsChevron) == [false, false])
        #expect(inbox.model.rows.map(\.destination) == [nil, nil])
        inbox.model.rowTapped(id: "g")
        inbox.model.rowTapped(id: "u")
        await inbox.clock.settle()
        #expect(inbox.navigator.steps.isEmpty)
        #expect(inbox.backend.calls(to: .markRead).isEmpty)
        #expect(inbox.model.rows.map(\.showsUnreadDot) == [true, true])
    }

    @Test("INBOX-09 rows with somewhere to go show a chevron: deep link, detail page, typed route")
    func rowsWithDestinations() async {
        let inbox = InboxHarness(
            [
                notification("link", type: "general.notice", age: 1, deepLink: "myapp://orders/9"),
                notification("rich", type: "general.notice", age: 2, detail: NotificationDetail(html: "<p>Hi</p>")),
                notification("promo", type: "promo.sale", age: 3, data: ["productId": "p1"]),
                notification("blocked", type: "general.notice", age: 4, deepLink: "https://evil.example/x"),
            ], allowedDeepLinkPrefixes: ["myapp://"])
        await inbox.appear()
        #expect(
            inbox.model.rows.map(\.destination) == [
                .deepLink("myapp://orders/9"), .detail(id: "rich"), .typed(path: "/products/p1"), nil,
            ])
        #expect(inbox.model.rows.map(\.showsChevron) == [true, true, true, false])
        inbox.model.rowTapped(id: "rich")
        #expect(inbox.navigator.openedPaths == ["/notifications/detail/rich"])
    }

    @Test("DETAIL-05 an unread row with a detail page loses its dot, but the page marks it read and shows New")
    func detailRowLeavesMarkReadToThePage() async {
        let inbox = InboxHarness([
            notification("rich", type: "promo.sale", age: 1, detail: NotificationDetail(html: "<p>Hi</p>"))
        ])
        await inbox.appear()
        inbox.model.rowTapped(id: "rich")
        await inbox.clock.settle()
        #expect(inbox.navigator.openedPaths == ["/notifications/detail/rich"])
        #expect(inbox.model.rows.map(\.showsUnreadDot) == [false])
        #expect(inbox.backend.calls(to: .markRead).isEmpty)
        #expect(inbox.backend.stored(id: "rich")?.readAt == nil)
    }

    @Test("INBOX-10 types without a catalog category show under All only")
    func uncategorisedUnderAllOnly() async {
        let inbox = InboxHarness([
            notification("sys", type: "system.maintenance", age: 1), notification("gen", type: "general", age: 2),
            notification("ann", type: "announcement.new", age: 3), notification("odd", type: "mystery.kind", age: 4),
            notification("ord", type: "order.shipped", age: 5),
        ])
        await inbox.appear()
        #expect(inbox.rowIDs == ["sys", "gen", "ann", "odd", "ord"])
        for chip in inbox.model.chips.dropFirst() {
            inbox.model.chipTapped(chip.filter)
            await inbox.clock.settle()
            #expect(!inbox.rowIDs.contains { ["sys", "gen", "ann", "odd"].contains($0) })
        }
        inbox.model.chipTapped(.category("orders"))
        #expect(inbox.rowIDs == ["ord"])
    }

    @Test("INBOX-11 admin rows never show: not served by the backend, and dropped if a page or event carries one")
    func adminRowsNeverShow() async {
        let inbox = InboxHarness([notification("adm", type: "admin.audit", age: 1), notification("a", age: 2)])
        await inbox.appear()
        #expect(inbox.rowIDs == ["a"])
        #expect(inbox.backend.counts == Counts(unread: 1, unseen: 0))

        // The client drops admin rows even when a stream or a page carries one.
        inbox.backend.emit(.created(notification("adm2", type: "admin.alert")))
        await inbox.clock.settle()
        #expect(inbox.rowIDs == ["a"])

        let clock = TestClock()
        var dependencies = HeraldDependencies.failing
        dependencies.clock = clock.dependency
        dependencies.api.notifications = { _, _, _ in
            NotificationPage(
                items: [notification("adm", type: "admin.audit"), notification("a", age: 1)], nextCursor: nil,
                unreadCount: 2, unseenCount: 0)
        }
        dependencies.api.markAllSeen = { Counts(unread: 1, unseen: 0) }
        dependencies.api.liveEvents = { AsyncThrowingStream { _ in } }
        let model = InboxModel(dependencies: dependencies, isSignedIn: true)
        model.appeared()
        await clock.settle()
        #expect(model.rows.map(\.id) == ["a"])
        model.disappeared()
    }

    @Test("INBOX-14 each row is one accessible element whose Delete action does what the swipe does")
    func deleteAccessibilityAction() async {
        let inbox = InboxHarness([notification("a", age: 1), notification("b", age: 2, read: true)])
        await inbox.appear()
        #expect(
            inbox.model.rows.map(\.accessibilityActions) == [
                [AccessibilityActionState(name: "Delete")], [AccessibilityActionState(name: "Delete")],
            ])
        #expect(inbox.model.rows.map(\.accessibilityLabel) == ["Unread, Title a, Body a", "Title b, Body b"])

        inbox.model.deleteActionInvoked(id: "a")
        #expect(inbox.rowIDs == ["b"])
        #expect(inbox.model.toast?.title == "Notification deleted")
        await inbox.clock.advance(by: .seconds(4))
        #expect(inbox.backend.calls(to: .delete) == [.delete(id: "a")])
        #expect(inbox.backend.isDeleted(id: "a"))
    }
}

import HeraldKit
import HeraldKitTestSupport
import HeraldModel
import Testing

@Suite("Inbox: pages, chips and the category auto-load")
@MainActor struct InboxPagingTests {
    @Test("INBOX-06 the inbox shows 20 rows and loads 20 more on end reached; chips from the catalog")
    func pagesOfTwenty() async {
        let inbox = InboxHarness(notifications(45))
        await inbox.appear()
        #expect(inbox.rowIDs == (1...20).map { "n\($0)" })
        #expect(inbox.model.chips.map(\.title) == ["All", "Orders", "Rewards", "Promotions", "Reminders", "Account"])
        #expect(inbox.model.chips.map(\.isSelected) == [true, false, false, false, false, false])

        inbox.model.endReached()
        await inbox.clock.settle()
        #expect(inbox.rowIDs == (1...40).map { "n\($0)" })
        inbox.model.endReached()
        await inbox.clock.settle()
        #expect(inbox.rowIDs == (1...45).map { "n\($0)" })
        // The opaque cursor of each page is passed back unchanged; 45 rows are seq 1...45, n20 is seq 26.
        #expect(
            inbox.pageCalls == [
                .page(nil), .page(InboxCursor.encode(seq: 26)), .page(InboxCursor.encode(seq: 6)),
            ])

        // The last page has no cursor: end reached asks for nothing more.
        inbox.model.endReached()
        await inbox.clock.settle()
        #expect(inbox.pageCalls.count == 3)
    }

    @Test("INBOX-06 chips follow an injected catalog")
    func chipsFollowCatalog() async {
        let catalog = Catalog(
            categories: [CatalogCategory(id: "orders", chip: "Bestellungen", preferenceToggle: "Bestellungen")],
            types: [CatalogTypeRule(prefix: "order", category: "orders", route: nil)])
        let clock = TestClock()
        let backend = FakeInboxBackend([notification("a")], catalog: catalog)
        var dependencies = HeraldDependencies.failing
        dependencies.api = backend.api()
        dependencies.clock = clock.dependency
        let model = InboxModel(dependencies: dependencies, isSignedIn: true, catalog: catalog)
        model.appeared()
        await clock.settle()
        #expect(model.chips.map(\.title) == ["All", "Bestellungen"])
    }

    @Test("INBOX-07 a footer spinner shows while the next page loads")
    func footerSpinner() async {
        let inbox = InboxHarness(notifications(25))
        await inbox.appear()
        #expect(!inbox.model.showsFooterSpinner)
        inbox.backend.script(.notifications, .hang)
        inbox.model.endReached()
        await inbox.clock.settle()
        #expect(inbox.model.showsFooterSpinner)
        #expect(inbox.rowIDs.count == 20)
        // A second end reached while loading asks for nothing more.
        inbox.model.endReached()
        await inbox.clock.settle()
        #expect(inbox.pageCalls.count == 2)

        inbox.backend.release(.notifications)
        await inbox.clock.settle()
        #expect(!inbox.model.showsFooterSpinner)
        #expect(inbox.rowIDs.count == 25)
    }

    @Test("INBOX-07 a next page that fails stops the spinner; end reached tries again")
    func nextPageFailure() async {
        let inbox = InboxHarness(notifications(25))
        await inbox.appear()
        inbox.backend.script(.notifications, .hang)
        inbox.model.endReached()
        await inbox.clock.advance(by: .seconds(10))
        #expect(!inbox.model.showsFooterSpinner)
        #expect(inbox.rowIDs.count == 20)
        inbox.model.endReached()
        await inbox.clock.settle()
        #expect(inbox.rowIDs.count == 25)
    }

    @Test("INBOX-12 a category with fewer than 10 matches shows Looking for more in this category while it pulls")
    func lookingForMore() async {
        // One promotion in the third page.
        let inbox = InboxHarness(notifications(60) { $0 == 50 ? "promo.sale" : "order.shipped" })
        await inbox.appear()
        inbox.backend.script(.notifications, .hang)
        inbox.model.chipTapped(.category("promotions"))
        await inbox.clock.settle()
        #expect(inbox.model.content == .empty(.lookingForMore))
        #expect(InboxEmptyState.lookingForMore.title == "Looking for more in this category")
        #expect(InboxEmptyState.lookingForMore.showsSpinner)
        #expect(inbox.model.chips.count == 6)

        inbox.backend.release(.notifications)
        await inbox.clock.settle()
        // The third page came by itself; its one match shows, and the pull went on to the end.
        #expect(inbox.rowIDs == ["n50"])
        #expect(inbox.pageCalls.count == 3)
    }

    @Test("INBOX-12 matches already loaded show while older pages are pulled under the footer spinner")
    func matchesShowWhilePulling() async {
        let inbox = InboxHarness(notifications(40) { $0 % 5 == 0 ? "promo.sale" : "order.shipped" })
        await inbox.appear()
        inbox.backend.script(.notifications, .hang)
        inbox.model.chipTapped(.category("promotions"))
        await inbox.clock.settle()
        #expect(inbox.rowIDs == ["n5", "n10", "n15", "n20"])
        #expect(inbox.model.showsFooterSpinner)
        inbox.backend.release(.notifications)
        await inbox.clock.settle()
        #expect(inbox.rowIDs == ["n5", "n10", "n15", "n20", "n25", "n30", "n35", "n40"])
        #expect(!inbox.model.showsFooterSpinner)
    }

    @Test("INBOX-13 the auto-load stops once 10 matches are loaded; the filter runs on the client")
    func stopsAtTenMatches() async {
        // Every 5th is a promotion: 4 per page of 20.
        let inbox = InboxHarness(notifications(100) { $0 % 5 == 0 ? "promo.sale" : "order.shipped" })
        await inbox.appear()
        inbox.model.chipTapped(.category("promotions"))
        await inbox.clock.settle()
        // 4, then 8, then 12 matches: three pages, each of every type.
        #expect(inbox.rowIDs.count == 12)
        #expect(inbox.pageCalls.count == 3)
        #expect(inbox.pageCalls.allSatisfy { $0 == .notifications(cursor: $0.cursor, category: nil, limit: 20) })
        // Scrolling on still loads more.
        inbox.model.endReached()
        await inbox.clock.settle()
        #expect(inbox.rowIDs.count == 16)
    }

    @Test("INBOX-13 the auto-load stops once 120 rows are loaded")
    func stopsAtOneHundredTwentyRows() async {
        // 119 orders then one promotion: 6 pages hold 120 rows, the 6th page holds the promotion.
        let inbox = InboxHarness(notifications(200) { $0 == 120 ? "promo.sale" : "order.shipped" })
        await inbox.appear()
        inbox.model.chipTapped(.category("rewards"))
        await inbox.clock.settle()
        #expect(inbox.pageCalls.count == 6)
        #expect(inbox.model.content == .empty(.noneInCategory))

        inbox.model.chipTapped(.category("promotions"))
        await inbox.clock.settle()
        #expect(inbox.rowIDs == ["n120"])
        #expect(inbox.pageCalls.count == 6)
    }

    @Test(
        "INBOX-13 9 matches on the first page pull the next page, 10 pull nothing",
        arguments: [(matches: 9, pages: 2), (matches: 10, pages: 1)])
    func tenMatchesAreEnough(matches: Int, pages: Int) async {
        // Promotions at n2, n4, ...; the first page of 20 holds `matches` of them.
        let inbox = InboxHarness(
            notifications(40) { $0 % 2 == 0 && ($0 > 20 || $0 / 2 <= matches) ? "promo.sale" : "order.shipped" })
        await inbox.appear()
        inbox.model.chipTapped(.category("promotions"))
        await inbox.clock.settle()
        #expect(inbox.pageCalls.count == pages)
        #expect(inbox.rowIDs.prefix(matches) == ArraySlice((1...matches).map { "n\($0 * 2)" }))
    }

    @Test("INBOX-13 back to All shows every loaded row without pulling more")
    func backToAll() async {
        let inbox = InboxHarness(notifications(100) { $0 % 5 == 0 ? "promo.sale" : "order.shipped" })
        await inbox.appear()
        inbox.model.chipTapped(.category("promotions"))
        await inbox.clock.settle()
        inbox.model.chipTapped(.all)
        await inbox.clock.settle()
        #expect(inbox.rowIDs == (1...60).map { "n\($0)" })
        #expect(inbox.pageCalls.count == 3)
    }
}

extension FakeInboxBackend.Call {
    /// The cursor of a list call.
    fileprivate var cursor: String? {
        if case .notifications(let cursor, _, _) = self { cursor } else { nil }
    }
}

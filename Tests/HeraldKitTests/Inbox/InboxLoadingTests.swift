import HeraldKit
import HeraldKitTestSupport
import HeraldModel
import Testing

@Suite("Inbox: sign-in gate, loading, errors and empty states")
@MainActor struct InboxLoadingTests {
    @Test("INBOX-01 a guest sees Sign in to view notifications and Sign in opens the auth sheet")
    func guestSeesSignIn() async {
        // Every API call fails the test: a guest's inbox asks the server nothing.
        let inbox = InboxHarness(isSignedIn: false, serving: [])
        await inbox.appear()
        #expect(inbox.model.content == .empty(.signInRequired))
        #expect(InboxEmptyState.signInRequired.title == "Sign in to view notifications")
        #expect(InboxEmptyState.signInRequired.button == ButtonState(title: "Sign in"))
        #expect(inbox.model.chips.isEmpty)
        inbox.model.signInTapped()
        #expect(inbox.navigator.steps == [.signIn])
    }

    @Test("INBOX-01 signing in from the guest message loads the inbox")
    func signingInLoads() async {
        let inbox = InboxHarness([notification("a")], isSignedIn: false)
        await inbox.appear()
        #expect(inbox.backend.calls.isEmpty)
        inbox.model.sessionChanged(isSignedIn: true)
        await inbox.clock.settle()
        #expect(inbox.rowIDs == ["a"])
    }

    @Test("INBOX-01 a lost session (401) shows the sign-in message")
    func lostSessionShowsSignIn() async {
        let inbox = InboxHarness([notification("a")])
        inbox.backend.script(.notifications, .fail(.unauthenticated()))
        await inbox.appear()
        #expect(inbox.model.content == .empty(.signInRequired))
        #expect(inbox.model.isSignedIn == false)
        #expect(inbox.backend.openStreamCount == 0)
    }

    @Test("INBOX-02 the first page loading shows exactly 6 skeleton rows and no chips")
    func skeletonWhileLoading() async {
        let inbox = InboxHarness(notifications(3))
        inbox.backend.script(.notifications, .hang)
        await inbox.appear()
        #expect(inbox.model.content == .skeleton(rows: 6))
        #expect(inbox.model.rows.isEmpty)
        #expect(inbox.model.chips.isEmpty)
        #expect(!inbox.model.showsFooterSpinner)
        inbox.backend.release(.notifications)
        await inbox.clock.settle()
        #expect(inbox.rowIDs == ["n1", "n2", "n3"])
    }

    @Test("INBOX-03 a first page without an answer for 10 s shows Couldn't load notifications; Try again retries")
    func timeoutThenTryAgain() async {
        let inbox = InboxHarness(notifications(2))
        inbox.backend.script(.notifications, .hang)
        await inbox.appear()
        await inbox.clock.advance(by: .milliseconds(9_999))
        #expect(inbox.model.content == .skeleton(rows: 6))
        await inbox.clock.advance(by: .milliseconds(1))
        #expect(inbox.model.content == .empty(.loadFailed))
        #expect(InboxEmptyState.loadFailed.title == "Couldn't load notifications")
        #expect(InboxEmptyState.loadFailed.button == ButtonState(title: "Try again"))
        #expect(inbox.model.chips.isEmpty)
        // The hanging request was cancelled, not left waiting.
        #expect(inbox.backend.hangingCount(.notifications) == 0)

        inbox.model.tryAgainTapped()
        #expect(inbox.model.content == .skeleton(rows: 6))
        await inbox.clock.settle()
        #expect(inbox.rowIDs == ["n1", "n2"])
        #expect(inbox.pageCalls == [.page(nil), .page(nil)])
    }

    @Test(
        "INBOX-03 a timeout, offline or server error shows the load error at once",
        arguments: [HeraldAPIError.timeout(), .offline(), .server()])
    func errorsShowLoadError(error: HeraldAPIError) async {
        let inbox = InboxHarness(notifications(2))
        inbox.backend.script(.notifications, .fail(error))
        await inbox.appear()
        #expect(inbox.model.content == .empty(.loadFailed))
        inbox.model.tryAgainTapped()
        await inbox.clock.settle()
        #expect(inbox.rowIDs == ["n1", "n2"])
    }

    @Test("INBOX-04 no notifications at all shows All caught up with the chips hidden")
    func allCaughtUp() async {
        let inbox = InboxHarness()
        await inbox.appear()
        #expect(inbox.model.content == .empty(.allCaughtUp))
        #expect(InboxEmptyState.allCaughtUp.title == "All caught up")
        #expect(InboxEmptyState.allCaughtUp.button == nil)
        #expect(inbox.model.chips.isEmpty)
        #expect(inbox.backend.calls == [.liveEvents, .page(nil), .markAllSeen])
    }

    @Test("INBOX-04 deleting the last notification leaves All caught up")
    func lastDeleteLeavesAllCaughtUp() async {
        let inbox = InboxHarness([notification("a", read: true)])
        await inbox.appear()
        inbox.model.rowSwiped(id: "a")
        #expect(inbox.model.content == .empty(.allCaughtUp))
        #expect(inbox.model.chips.isEmpty)
    }

    @Test(
        "INBOX-05 a category still empty after the auto-load gives up shows No notifications in this category, chips stay"
    )
    func categoryEmptyAfterAutoLoad() async {
        let inbox = InboxHarness(notifications(30))
        await inbox.appear()
        inbox.model.chipTapped(.category("promotions"))
        await inbox.clock.settle()
        #expect(inbox.model.content == .empty(.noneInCategory))
        #expect(InboxEmptyState.noneInCategory.title == "No notifications in this category")
        #expect(inbox.model.chips.map(\.title) == ["All", "Orders", "Rewards", "Promotions", "Reminders", "Account"])
        #expect(inbox.model.chips.first { $0.isSelected }?.filter == .category("promotions"))
        // Both pages were pulled before giving up: there are no more.
        #expect(inbox.pageCalls.count == 2)
    }
}

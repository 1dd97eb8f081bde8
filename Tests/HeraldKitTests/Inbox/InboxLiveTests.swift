import Foundation
import HeraldKit
import HeraldKitTestSupport
import HeraldModel
import Testing

@Suite("Inbox: live updates instead of pull to refresh")
@MainActor struct InboxLiveTests {
    @Test("INBOX-15 a new notification appears at the top while the inbox is visible")
    func createdGoesOnTop() async {
        let inbox = InboxHarness([notification("a", age: 1)])
        await inbox.appear()
        inbox.backend.publish(notification("b"))
        await inbox.clock.settle()
        #expect(inbox.rowIDs == ["b", "a"])
        #expect(inbox.model.rows.first?.showsUnreadDot == true)
        #expect(inbox.model.counts == Counts(unread: 2, unseen: 1))
        // The same notification twice (a replay) is listed once.
        inbox.backend.emit(.created(notification("b")))
        await inbox.clock.settle()
        #expect(inbox.rowIDs == ["b", "a"])
    }

    @Test("INBOX-15 reads and deletes made on another device update the list")
    func changesFromElsewhere() async {
        let inbox = InboxHarness([notification("a", age: 1), notification("b", age: 2)])
        await inbox.appear()
        inbox.backend.emit(.updated(NotificationChange(id: "a", readAt: inbox.clock.now, seenAt: inbox.clock.now)))
        inbox.backend.emit(.updated(NotificationChange(id: "b", deleted: true)))
        inbox.backend.emit(.counts(Counts(unread: 0, unseen: 0)))
        await inbox.clock.settle()
        #expect(inbox.rowIDs == ["a"])
        #expect(inbox.model.rows.first?.showsUnreadDot == false)
        #expect(inbox.model.counts == Counts(unread: 0, unseen: 0))
    }

    @Test("INBOX-15 a reset reloads the first page")
    func resetReloads() async {
        let inbox = InboxHarness([notification("a", age: 1)])
        await inbox.appear()
        inbox.backend.publish(notification("b"))
        inbox.backend.emit(.reset)
        await inbox.clock.settle()
        #expect(inbox.rowIDs == ["b", "a"])
        #expect(inbox.pageCalls == [.page(nil), .page(nil)])
    }

    @Test("INBOX-15 events that arrive while a page loads are applied once it lands")
    func eventsDuringLoadAreHeld() async {
        let inbox = InboxHarness([notification("a", age: 1), notification("b", age: 2)])
        inbox.backend.script(.notifications, .hang)
        await inbox.appear()
        // The page will answer from the data as it is when released; these events came first.
        inbox.backend.emit(.created(notification("new")))
        inbox.backend.emit(.updated(NotificationChange(id: "b", deleted: true)))
        await inbox.clock.settle()
        #expect(inbox.model.content == .skeleton(rows: 6))
        inbox.backend.release(.notifications)
        await inbox.clock.settle()
        #expect(inbox.rowIDs == ["new", "a"])
    }

    @Test("INBOX-15 the subscription lives only while the inbox is visible")
    func subscriptionFollowsVisibility() async {
        let inbox = InboxHarness([notification("a", age: 1)])
        await inbox.appear()
        #expect(inbox.backend.openStreamCount == 1)
        inbox.model.disappeared()
        await inbox.clock.settle()
        #expect(inbox.backend.openStreamCount == 0)

        inbox.backend.publish(notification("b"))
        await inbox.clock.settle()
        #expect(inbox.rowIDs == ["a"])
        await inbox.appear()
        #expect(inbox.backend.openStreamCount == 1)
        #expect(inbox.rowIDs == ["b", "a"])
        #expect(inbox.backend.calls(to: .liveEvents).count == 2)
    }

    @Test("INBOX-15 a model dropped without disappearing closes its stream")
    func droppedModelClosesStream() async {
        let clock = TestClock()
        let backend = FakeInboxBackend([notification("a")])
        var dependencies = HeraldDependencies.failing
        dependencies.api = backend.api()
        dependencies.clock = clock.dependency
        var model: InboxModel? = InboxModel(dependencies: dependencies, isSignedIn: true)
        model?.appeared()
        await clock.settle()
        #expect(backend.openStreamCount == 1)
        model = nil
        await clock.settle()
        #expect(backend.openStreamCount == 0)
    }

    @Test("INBOX-15 a stream ended by a lost session shows the sign-in message")
    func streamEndsWithLostSession() async {
        let inbox = InboxHarness([notification("a")])
        await inbox.appear()
        inbox.backend.endStreams(throwing: .unauthenticated())
        await inbox.clock.settle()
        #expect(inbox.model.content == .empty(.signInRequired))
    }
}

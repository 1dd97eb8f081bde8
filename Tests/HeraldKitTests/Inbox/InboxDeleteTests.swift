import HeraldKit
import HeraldKitTestSupport
import HeraldModel
import Testing

@Suite("Inbox: delete with undo")
@MainActor struct InboxDeleteTests {
    private let undoToast = Toast(
        kind: .success, title: "Notification deleted", message: "tap to undo", duration: .seconds(4), isTappable: true)

    @Test("DEL-01 a swipe hides the row at once; the delete runs at 4 s, not at 3.999 s")
    func deleteRunsAfterFourSeconds() async {
        let inbox = InboxHarness([notification("a", age: 1), notification("b", age: 2)])
        await inbox.appear()
        inbox.model.rowSwiped(id: "a")
        #expect(inbox.rowIDs == ["b"])
        #expect(inbox.model.toast == undoToast)

        await inbox.clock.advance(by: .milliseconds(3_999))
        #expect(inbox.backend.calls(to: .delete).isEmpty)
        #expect(inbox.model.toast == undoToast)
        await inbox.clock.advance(by: .milliseconds(1))
        #expect(inbox.backend.calls(to: .delete) == [.delete(id: "a")])
        #expect(inbox.backend.isDeleted(id: "a"))
        #expect(inbox.model.toast == nil)
        #expect(inbox.rowIDs == ["b"])
    }

    @Test("DEL-01 tapping the toast brings the row back in place and the delete never runs")
    func undoRestoresInPlace() async {
        let inbox = InboxHarness([notification("a", age: 1), notification("b", age: 2), notification("c", age: 3)])
        await inbox.appear()
        inbox.model.rowSwiped(id: "b")
        await inbox.clock.advance(by: .milliseconds(3_999))
        inbox.model.undoTapped()
        #expect(inbox.rowIDs == ["a", "b", "c"])
        #expect(inbox.model.toast == nil)
        await inbox.clock.advance(by: .seconds(60))
        #expect(inbox.backend.calls(to: .delete).isEmpty)
        #expect(!inbox.backend.isDeleted(id: "b"))
    }

    @Test("DEL-01 several pending deletes each run on their own 4 s; undo brings back the latest")
    func severalPendingDeletes() async {
        let inbox = InboxHarness([notification("a", age: 1), notification("b", age: 2), notification("c", age: 3)])
        await inbox.appear()
        inbox.model.rowSwiped(id: "a")
        await inbox.clock.advance(by: .seconds(1))
        inbox.model.rowSwiped(id: "c")
        #expect(inbox.rowIDs == ["b"])

        await inbox.clock.advance(by: .seconds(3))
        #expect(inbox.backend.calls(to: .delete) == [.delete(id: "a")])
        // The toast is c's, still up.
        #expect(inbox.model.toast == undoToast)
        inbox.model.undoTapped()
        #expect(inbox.rowIDs == ["b", "c"])
        await inbox.clock.advance(by: .seconds(10))
        #expect(inbox.backend.calls(to: .delete) == [.delete(id: "a")])
        // Undo only ever restores the latest: a second tap does nothing.
        inbox.model.undoTapped()
        #expect(inbox.rowIDs == ["b", "c"])
    }

    @Test("DEL-01 swiping the same row twice schedules one delete")
    func swipeTwiceDeletesOnce() async {
        let inbox = InboxHarness([notification("a")])
        await inbox.appear()
        inbox.model.rowSwiped(id: "a")
        inbox.model.deleteActionInvoked(id: "a")
        await inbox.clock.advance(by: .seconds(4))
        #expect(inbox.backend.calls(to: .delete) == [.delete(id: "a")])
    }

    @Test("DEL-02 a failed delete brings the row back in place with Could not delete notification")
    func failedDeleteRestores() async {
        let inbox = InboxHarness([notification("a", age: 1), notification("b", age: 2)])
        await inbox.appear()
        inbox.backend.script(.delete, .fail(.server()))
        inbox.model.rowSwiped(id: "a")
        await inbox.clock.advance(by: .seconds(4))
        #expect(inbox.rowIDs == ["a", "b"])
        #expect(inbox.model.toast == Toast(kind: .danger, title: "Could not delete notification"))
        #expect(!inbox.backend.isDeleted(id: "a"))
        // The failure toast leaves after its 3 s; it has nothing to undo.
        inbox.model.undoTapped()
        #expect(inbox.rowIDs == ["a", "b"])
        await inbox.clock.advance(by: .seconds(3))
        #expect(inbox.model.toast == nil)
    }

    @Test("DEL-02 the row stays hidden while the delete call runs")
    func hiddenWhileDeleting() async {
        let inbox = InboxHarness([notification("a", age: 1), notification("b", age: 2)])
        await inbox.appear()
        inbox.backend.script(.delete, .hang)
        inbox.model.rowSwiped(id: "a")
        await inbox.clock.advance(by: .seconds(4))
        #expect(inbox.rowIDs == ["b"])
        inbox.backend.fail(.delete, with: .offline())
        await inbox.clock.settle()
        #expect(inbox.rowIDs == ["a", "b"])
        #expect(inbox.model.toast?.kind == .danger)
    }

    @Test("DEL-03 leaving the screen runs every pending delete at once")
    func leavingFlushesDeletes() async {
        let inbox = InboxHarness([notification("a", age: 1), notification("b", age: 2), notification("c", age: 3)])
        await inbox.appear()
        inbox.model.rowSwiped(id: "c")
        inbox.model.rowSwiped(id: "a")
        await inbox.clock.advance(by: .seconds(1))
        inbox.model.disappeared()
        await inbox.clock.settle()
        #expect(inbox.backend.calls(to: .delete) == [.delete(id: "c"), .delete(id: "a")])
        #expect(inbox.model.toast == nil)
        inbox.model.undoTapped()
        #expect(inbox.rowIDs == ["b"])
        // Nothing runs a second time when the 4 s would have passed.
        await inbox.clock.advance(by: .seconds(10))
        #expect(inbox.backend.calls(to: .delete).count == 2)
    }

    @Test("DEL-03 an inbox released without disappearing still sends its pending deletes, at once and once")
    func releasedModelFlushesDeletes() async {
        let clock = TestClock()
        let backend = FakeInboxBackend(
            [notification("a", age: 1), notification("b", age: 2), notification("c", age: 3)], now: { clock.now })
        var dependencies = HeraldDependencies.failing
        dependencies.api = backend.api()
        dependencies.clock = clock.dependency
        var model: InboxModel? = InboxModel(dependencies: dependencies, isSignedIn: true)
        weak let released = model
        model?.appeared()
        await clock.settle()
        model?.rowSwiped(id: "a")
        model?.rowSwiped(id: "c")
        await clock.advance(by: .seconds(1))

        model = nil
        await clock.settle()
        #expect(released == nil)
        #expect(backend.calls(to: .delete) == [.delete(id: "a"), .delete(id: "c")])
        #expect(backend.isDeleted(id: "a") && backend.isDeleted(id: "c"))
        await clock.advance(by: .seconds(10))
        #expect(backend.calls(to: .delete).count == 2)
    }

    @Test("DEL-03 signing out runs the pending deletes before the inbox drops its rows")
    func signOutFlushesDeletes() async {
        let inbox = InboxHarness([notification("a", age: 1), notification("b", age: 2)])
        await inbox.appear()
        inbox.model.rowSwiped(id: "a")
        await inbox.clock.advance(by: .seconds(1))

        inbox.model.sessionChanged(isSignedIn: false)
        await inbox.clock.settle()
        #expect(inbox.backend.calls(to: .delete) == [.delete(id: "a")])
        #expect(inbox.backend.isDeleted(id: "a"))
        #expect(inbox.model.content == .empty(.signInRequired))
        #expect(inbox.model.toast == nil)
        await inbox.clock.advance(by: .seconds(10))
        #expect(inbox.backend.calls(to: .delete).count == 1)
    }

    @Test("DEL-03 a session lost mid-visit still tries the pending deletes, and their 401 fails quietly")
    func lostSessionTriesDeletesQuietly() async {
        let inbox = InboxHarness([notification("a", age: 1), notification("b", age: 2)])
        await inbox.appear()
        inbox.model.rowSwiped(id: "a")
        inbox.backend.script(.delete, .fail(.unauthenticated()))

        inbox.backend.endStreams(throwing: .unauthenticated())
        await inbox.clock.settle()
        #expect(inbox.backend.calls(to: .delete) == [.delete(id: "a")])
        #expect(inbox.model.content == .empty(.signInRequired))
        #expect(inbox.model.toast == nil, "no Could not delete notification over the sign-in message")
    }

    @Test("DEL-02 a delete that fails after signing out shows nothing, even once someone signs in again")
    func deleteFailingAfterSignOutIsQuiet() async {
        let inbox = InboxHarness([notification("a", age: 1), notification("b", age: 2)])
        await inbox.appear()
        inbox.backend.script(.delete, .hang)
        inbox.model.rowSwiped(id: "a")
        inbox.model.sessionChanged(isSignedIn: false)
        await inbox.clock.settle()
        #expect(inbox.backend.hangingCount(.delete) == 1)

        inbox.model.sessionChanged(isSignedIn: true)
        await inbox.clock.settle()
        #expect(inbox.rowIDs == ["a", "b"])
        inbox.backend.fail(.delete, with: .unauthenticated())
        await inbox.clock.settle()
        #expect(inbox.model.toast == nil)
        #expect(inbox.rowIDs == ["a", "b"])
    }
}

import HeraldKit
import HeraldKitTestSupport
import HeraldModel
import Testing

@Suite("App icon badge")
@MainActor struct AppBadgeModelTests {
    @Test("GATE-09 the icon badge follows the unread count as notifications are created, read and deleted")
    func followsUnread() async throws {
        let world = ShellWorld()
        let backend = FakeInboxBackend(notifications(3))
        world.dependencies.api = backend.api(serving: [.liveEvents, .markRead, .delete])
        let badge = AppBadgeModel(dependencies: world.dependencies, shell: world.shell.client)

        badge.sessionChanged(isSignedIn: true)
        await world.clock.settle()
        #expect(badge.unreadCount == 3)
        #expect(world.shell.iconBadges == [3])

        _ = try await world.dependencies.api.markRead("n1")
        await world.clock.settle()
        #expect(badge.unreadCount == 2)
        try await world.dependencies.api.delete("n2")
        await world.clock.settle()
        #expect(badge.unreadCount == 1)
        backend.publish(notification("n9"))
        await world.clock.settle()
        #expect(badge.unreadCount == 2)
        #expect(world.shell.iconBadges == [3, 2, 1, 2])
    }

    @Test("GATE-09 a guest's icon shows 0, so signing out clears it")
    func guestClears() async {
        let world = ShellWorld()
        let backend = FakeInboxBackend(notifications(4))
        world.dependencies.api = backend.api(serving: [.liveEvents])
        let badge = AppBadgeModel(dependencies: world.dependencies, shell: world.shell.client)
        badge.sessionChanged(isSignedIn: false)
        #expect(world.shell.iconBadges == [0])

        badge.sessionChanged(isSignedIn: true)
        await world.clock.settle()
        #expect(world.shell.iconBadges == [0, 4])
        badge.sessionChanged(isSignedIn: false)
        await world.clock.settle()
        #expect(badge.unreadCount == 0)
        #expect(world.shell.iconBadges == [0, 4, 0])
        #expect(backend.openStreamCount == 0)

        // Counts that arrive after sign-out change nothing.
        backend.publish(notification("n9"))
        await world.clock.settle()
        #expect(world.shell.iconBadges == [0, 4, 0])
    }

    @Test("GATE-09 counts the old session's stream already held are not shown after a sign-out")
    func signOutBeforeTheStreamIsRead() async {
        let world = ShellWorld()
        let backend = FakeInboxBackend(notifications(4))
        world.dependencies.api = backend.api(serving: [.liveEvents])
        let badge = AppBadgeModel(dependencies: world.dependencies, shell: world.shell.client)
        // The stream opens with its counts queued; the person signs out before they are read.
        badge.sessionChanged(isSignedIn: true)
        badge.sessionChanged(isSignedIn: false)
        await world.clock.settle()
        #expect(badge.unreadCount == 0)
        #expect(world.shell.iconBadges == [0])
    }

    @Test("GATE-09 a session lost on the stream (401) clears the icon")
    func lostSessionClears() async {
        let world = ShellWorld()
        let backend = FakeInboxBackend(notifications(2))
        world.dependencies.api = backend.api(serving: [.liveEvents])
        let badge = AppBadgeModel(dependencies: world.dependencies, shell: world.shell.client)
        badge.sessionChanged(isSignedIn: true)
        await world.clock.settle()
        backend.endStreams(throwing: .unauthenticated())
        await world.clock.settle()
        #expect(badge.unreadCount == 0)
        #expect(world.shell.iconBadges == [2, 0])
    }
}

import Foundation
import HeraldKit
import HeraldKitTestSupport
import HeraldModel

/// A notification for inbox tests; `age` orders them (a larger age is older).
func notification(
    _ id: String, type: String = "order.shipped", age: Int = 0, read: Bool = false, seen: Bool = false,
    data: [String: String] = [:], deepLink: String? = nil, detail: NotificationDetail? = nil
) -> InboxNotification {
    let createdAt = Date(timeIntervalSince1970: 1_799_000_000 - Double(age) * 60)
    return InboxNotification(
        id: id, type: type, category: nil, title: "Title \(id)", body: "Body \(id)", data: data, deepLink: deepLink,
        createdAt: createdAt, readAt: read ? createdAt : nil, seenAt: seen || read ? createdAt : nil, detail: detail)
}

/// `count` notifications, newest first, with ids `n1`, `n2`, ...; `type(index)` picks each type.
func notifications(_ count: Int, type: (Int) -> String = { _ in "order.shipped" }) -> [InboxNotification] {
    (0..<count).map { notification("n\($0 + 1)", type: type($0 + 1), age: $0 + 1) }
}

/// An inbox model over a fake backend, a test clock and a recording navigator; every other
/// dependency fails the test when used.
@MainActor struct InboxHarness {
    let clock = TestClock()
    let backend: FakeInboxBackend
    let navigator = RecordingNavigator()
    let model: InboxModel

    init(
        _ notifications: [InboxNotification] = [], isSignedIn: Bool = true,
        serving endpoints: Set<FakeInboxBackend.Endpoint> = Set(FakeInboxBackend.Endpoint.allCases),
        allowedDeepLinkPrefixes: [String] = []
    ) {
        let clock = clock
        backend = FakeInboxBackend(notifications, now: { clock.now })
        var dependencies = HeraldDependencies.failing
        dependencies.api = backend.api(serving: endpoints)
        dependencies.clock = clock.dependency
        dependencies.navigator = navigator.navigator
        model = InboxModel(
            dependencies: dependencies, isSignedIn: isSignedIn, allowedDeepLinkPrefixes: allowedDeepLinkPrefixes)
    }

    /// The model appeared and the main actor ran what that started.
    func appear() async {
        model.appeared()
        await clock.settle()
    }

    /// The ids of the rows on screen, top to bottom.
    var rowIDs: [String] { model.rows.map(\.id) }

    /// The list calls made, in order.
    var pageCalls: [FakeInboxBackend.Call] { backend.calls(to: .notifications) }
}

extension FakeInboxBackend.Call {
    /// A list call without a category, as the inbox makes them.
    static func page(_ cursor: String?) -> Self {
        .notifications(cursor: cursor, category: nil, limit: 20)
    }
}

import Foundation
import HeraldKit
import HeraldKitTestSupport
import HeraldModel
import Testing

/// Lines the detail model logged.
@MainActor private final class LogLines {
    var lines: [String] = []
}

/// A detail model over a fake backend, a test clock, a recording navigator and a recording log.
@MainActor private struct DetailHarness {
    let clock = TestClock()
    let backend: FakeInboxBackend
    let navigator = RecordingNavigator()
    let log = LogLines()
    let model: NotificationDetailModel

    init(_ notifications: [InboxNotification], id: String) {
        let clock = clock
        backend = FakeInboxBackend(notifications, now: { clock.now })
        var dependencies = HeraldDependencies.failing
        dependencies.api = backend.api(serving: [.notification, .markRead])
        dependencies.clock = clock.dependency
        dependencies.navigator = navigator.navigator
        model = NotificationDetailModel(id: id, dependencies: dependencies, log: { [log] in log.lines.append($0) })
    }

    func appear() async {
        model.appeared()
        await clock.settle()
    }

    var content: NotificationDetailContent? {
        if case .loaded(let content) = model.state { content } else { nil }
    }
}

private func rich(
    _ id: String = "n1", type: String = "promo.sale", read: Bool = false, hero: String? = nil,
    html: String? = "<p>Forty percent off</p>", label: String? = nil, path: String? = nil, url: String? = nil
) -> InboxNotification {
    notification(
        id, type: type, read: read,
        detail: NotificationDetail(heroImageURL: hero, html: html, actionLabel: label, actionPath: path, actionURL: url)
    )
}

@Suite("Notification detail")
@MainActor struct NotificationDetailTests {
    @Test("DETAIL-01 Loading notification shows while the query is pending")
    func loadingWhilePending() async {
        let page = DetailHarness([rich()], id: "n1")
        page.backend.script(.notification, .hang)
        #expect(page.model.state == .loading(.loading))
        await page.appear()
        #expect(page.model.state == .loading(.loading))
        #expect(NotificationDetailMessage.loading.title == "Loading notification")
        #expect(NotificationDetailMessage.loading.showsSpinner)
        page.backend.release(.notification)
        await page.clock.settle()
        #expect(page.content?.title == "Title n1")
    }

    @Test("DETAIL-01 no answer by 10 s (9.999 s is still loading) fails with Try again, which retries")
    func timeoutThenRetry() async {
        let page = DetailHarness([rich()], id: "n1")
        page.backend.script(.notification, .hang)
        await page.appear()
        await page.clock.advance(by: .milliseconds(9_999))
        #expect(page.model.state == .loading(.loading))
        await page.clock.advance(by: .milliseconds(1))
        #expect(page.model.state == .failed(.failed))
        #expect(NotificationDetailMessage.failed.button == ButtonState(title: "Try again"))
        page.model.tryAgainTapped()
        await page.clock.settle()
        #expect(page.content != nil)
    }

    @Test(
        "DETAIL-02 a bad id, another user's, a deleted and an admin notification all give Unable to load notification",
        arguments: ["missing", "someone-elses", "deleted", "admin"])
    func unableToLoad(id: String) async {
        let page = DetailHarness(
            [rich("deleted"), rich("admin", type: "admin.audit"), rich("mine")], id: id)
        page.backend.publish(rich("someone-elses"), to: "someone-else")
        if id == "deleted" { _ = try? await page.backend.api().delete("deleted") }
        #expect(page.backend.stored(id: id) != nil || id == "missing", "every id but the bad one names a real row")
        await page.appear()
        #expect(page.model.state == .failed(.notFound))
        #expect(NotificationDetailMessage.notFound.title == "Unable to load notification")
        #expect(NotificationDetailMessage.notFound.button == nil)
        // Nothing to retry, and nothing was marked read.
        page.model.tryAgainTapped()
        await page.clock.settle()
        #expect(page.backend.calls(to: .notification).count == 1)
        #expect(page.backend.calls(to: .markRead).isEmpty)
        #expect(page.backend.stored(id: "someone-elses")?.readAt == nil, "the other user's row is untouched")
    }

    @Test("DETAIL-03 a hero image gives the image, an overlay and a white back chevron")
    func heroLayout() async {
        let page = DetailHarness([rich(hero: "https://cdn.example/hero.png")], id: "n1")
        await page.appear()
        let layout = page.content?.layout
        #expect(layout == .hero(URL(string: "https://cdn.example/hero.png")!))
        #expect(layout?.showsImageOverlay == true)
        #expect(layout?.backButton == .whiteChevronOverImage)
        #expect(page.content?.body == .html("<p>Forty percent off</p>"))
    }

    @Test("DETAIL-04 without an image the page has a compact back button row")
    func compactLayout() async {
        let page = DetailHarness([rich()], id: "n1")
        await page.appear()
        #expect(page.content?.layout == .compact)
        #expect(page.content?.layout.backButton == .compactRow)
        #expect(page.content?.layout.heroImageURL == nil)
        page.model.backTapped()
        #expect(page.navigator.openedPaths == ["/notifications"])
    }

    @Test("DETAIL-05 the New badge stays visible after the automatic mark-as-read")
    func newBadgeStays() async {
        let page = DetailHarness([rich()], id: "n1")
        await page.appear()
        #expect(page.backend.calls(to: .markRead) == [.markRead(id: "n1")])
        #expect(page.backend.stored(id: "n1")?.readAt != nil)
        #expect(page.content?.badge == "New")
        // Coming back to the page in the same visit keeps it.
        page.model.appeared()
        await page.clock.settle()
        #expect(page.content?.badge == "New")
        #expect(page.backend.calls(to: .notification).count == 1)
    }

    @Test("DETAIL-05 an already read notification has no New badge and is not marked again")
    func readHasNoBadge() async {
        let page = DetailHarness([rich(read: true)], id: "n1")
        await page.appear()
        #expect(page.content?.badge == nil)
        #expect(page.backend.calls(to: .markRead).isEmpty)
    }

    @Test(
        "DETAIL-06 an invalid CTA path is logged and ignored",
        arguments: [
            "orders/1", "https://evil.example/x", "//evil.example/x", "/orders/../admin", "/orders/%2E%2E/admin",
            "javascript:alert(1)", "/orders/1 2", "/\\evil.example", "/orders/%2e%2e/admin/%zz", "/%2e%2E/%FF",
        ])
    func invalidPathIgnored(path: String) async {
        let page = DetailHarness([rich(label: "Track order", path: path)], id: "n1")
        await page.appear()
        #expect(page.content?.action == ButtonState(title: "Track order"))
        page.model.ctaTapped()
        #expect(page.navigator.steps.isEmpty)
        #expect(page.log.lines.count == 1)
        #expect(page.log.lines.first?.contains(path) == true)
    }

    @Test("DETAIL-06 a valid CTA path opens in the app; an https action URL opens outside")
    func validActionsOpen() async {
        let inApp = DetailHarness([rich(path: "/orders/123?tab=items")], id: "n1")
        await inApp.appear()
        inApp.model.ctaTapped()
        #expect(inApp.navigator.steps == [.open("/orders/123?tab=items")])

        let external = DetailHarness([rich(url: "https://shop.example/sale")], id: "n1")
        await external.appear()
        external.model.ctaTapped()
        #expect(external.navigator.steps == [.openURL(URL(string: "https://shop.example/sale")!)])
        #expect(inApp.log.lines.isEmpty && external.log.lines.isEmpty)
    }

    @Test("DETAIL-07 the CTA says View Details when there is no action label")
    func labelFallback() async {
        let page = DetailHarness([rich(path: "/orders/1")], id: "n1")
        await page.appear()
        #expect(page.content?.action == ButtonState(title: "View Details"))

        let blank = DetailHarness([rich(label: "  ", url: "https://shop.example")], id: "n1")
        await blank.appear()
        #expect(blank.content?.action == ButtonState(title: "View Details"))

        let none = DetailHarness([rich(label: "Shop now")], id: "n1")
        await none.appear()
        #expect(none.content?.action == nil)
    }

    @Test("DETAIL-08 without rich content the title and body are the push title and text")
    func plainFallback() async {
        let page = DetailHarness([notification("n1", type: "general")], id: "n1")
        await page.appear()
        #expect(
            page.content
                == NotificationDetailContent(
                    layout: .compact, title: "Title n1", body: .text("Body n1"), badge: "New", action: nil,
                    createdAt: notification("n1").createdAt))
    }

    @Test("DETAIL-08 a hero image without HTML keeps the push text as the body")
    func heroWithoutHTML() async {
        let page = DetailHarness([rich(hero: "https://cdn.example/h.png", html: nil)], id: "n1")
        await page.appear()
        #expect(page.content?.body == .text("Body n1"))
        #expect(page.content?.layout.heroImageURL != nil)
    }
}

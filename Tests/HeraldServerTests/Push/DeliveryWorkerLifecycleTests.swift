import Foundation
import HeraldModel
import HeraldSandbox
import HeraldServer
import HeraldTestSupport
import Testing

/// The worker's part in the app's lifecycle: it drains on stop, and bad settings stop start-up.
@Suite("Delivery worker lifecycle", .serialized)
struct DeliveryWorkerLifecycleTests {
    @Test("stop waits for the send in flight and records it")
    func drainsOnStop() async throws {
        let fixture = try await PushFixture.start()
        let token = PushFixture.deviceToken()
        fixture.sandbox.setFault(.delay(.milliseconds(300)), for: token)
        try await fixture.register(token, for: "erin")
        let id = try await fixture.publish(to: "erin")
        // Polled often: the stop should come while the push is in flight.
        _ = try await becomesTrue(every: .milliseconds(5)) {
            try await fixture.server.app.store.deliveries(notificationID: id).first?.status == .sending
        }
        await fixture.server.app.stop()
        let rows = try await fixture.server.app.store.deliveries(notificationID: id)
        #expect(rows.map(\.status) == [.sent], "\(rows)")
        #expect(fixture.sandbox.accepted(for: token).map(\.apnsID) == rows.map(\.id))
        await fixture.stop(serverStopped: true)
    }

    @Test("an unreadable APNs key file fails start-up with a clear error")
    func unreadableKey() async throws {
        await #expect {
            try await TestServer.start(configure: { configuration in
                configuration.apns = APNsSettings(
                    keyFile: "/nonexistent/AuthKey.p8", keyID: "KEY", teamID: "TEAM", topic: "dev.herald.app")
            })
        } throws: { error in
            (error as? PushSettingsError)?.description.contains("/nonexistent/AuthKey.p8") == true
        }
    }
}

import Foundation
import HeraldKit
import HeraldKitTestSupport
import HeraldModel
import Testing

@Suite("Live Activity token registration")
@MainActor struct LiveActivityRegistrarTests {
    struct Failed: Error {}

    let backend = FakeRegistrationBackend()
    let clock = TestClock()
    let registrar: LiveActivityRegistrar

    static let token = Data([0xAB, 0x01, 0xFF] + [UInt8](repeating: 0, count: 29))
    static let hex = "ab01ff" + String(repeating: "00", count: 29)
    static let newer = Data(repeating: 0x42, count: 32)

    init() {
        var dependencies = HeraldDependencies.failing
        dependencies.api.registerLiveActivityToken = backend.registerLiveActivityToken
        dependencies.api.unregisterLiveActivityToken = backend.unregisterLiveActivityToken
        dependencies.clock = clock.dependency
        registrar = LiveActivityRegistrar(dependencies: dependencies, environment: .development)
    }

    @Test("a push-to-start token is registered once as hex with its attributes type and environment")
    func pushToStart() async {
        await registrar.pushToStartTokenReceived(Self.token, attributesType: "DeliveryAttributes")
        await registrar.pushToStartTokenReceived(Self.token, attributesType: "DeliveryAttributes")

        #expect(
            backend.liveActivityRegistrations == [
                LiveActivityTokenRegistration(
                    token: Self.hex, attributesType: "DeliveryAttributes", kind: .pushToStart, environment: .development
                )
            ], "ActivityKit repeating a token sends nothing")
        #expect(registrar.statuses == [.pushToStart(attributesType: "DeliveryAttributes"): .registered])
    }

    @Test("an activity's token is registered under its id; a newer token registers again")
    func activityToken() async {
        await registrar.activityTokenReceived(Self.token, activityID: "order-42", attributesType: "DeliveryAttributes")
        await registrar.activityTokenReceived(Self.newer, activityID: "order-42", attributesType: "DeliveryAttributes")

        #expect(backend.liveActivityRegistrations.map(\.activityId) == ["order-42", "order-42"])
        #expect(backend.liveActivityRegistrations.map(\.kind) == [nil, nil], "update is the default kind")
        #expect(backend.liveActivityRegistrations.last?.token == String(repeating: "42", count: 32))
        #expect(registrar.statuses[.activity(id: "order-42", attributesType: "DeliveryAttributes")] == .registered)
    }

    @Test("an app of a server with several apps registers its tokens under its app id")
    func appID() async {
        var dependencies = HeraldDependencies.failing
        dependencies.api.registerLiveActivityToken = backend.registerLiveActivityToken
        dependencies.clock = clock.dependency
        dependencies.platform.appId = "shop"
        let registrar = LiveActivityRegistrar(dependencies: dependencies)

        await registrar.pushToStartTokenReceived(Self.token, attributesType: "DeliveryAttributes")
        await registrar.activityTokenReceived(Self.newer, activityID: "order-42", attributesType: "DeliveryAttributes")

        #expect(backend.liveActivityRegistrations.map(\.appId) == ["shop", "shop"])
    }

    @Test("a failed registration is retried after 5 s, then 15 s, and holds once it succeeds")
    func retries() async {
        backend.liveActivityError = Failed()
        backend.liveActivityFailures = 2
        let target = LiveActivityRegistrar.Target.pushToStart(attributesType: "DeliveryAttributes")

        await registrar.pushToStartTokenReceived(Self.token, attributesType: "DeliveryAttributes")
        #expect(registrar.statuses[target] == .waitingToRetry(attempt: 1))
        await clock.advance(by: .seconds(4))
        #expect(backend.liveActivityRegistrations.count == 1)
        await clock.advance(by: .seconds(1))
        #expect(backend.liveActivityRegistrations.count == 2)
        #expect(registrar.statuses[target] == .waitingToRetry(attempt: 2))
        await clock.advance(by: .seconds(15))
        #expect(backend.liveActivityRegistrations.count == 3)
        #expect(registrar.statuses[target] == .registered)
        await clock.advance(by: .seconds(600))
        #expect(backend.liveActivityRegistrations.count == 3)
    }

    @Test("after five failed attempts it gives up until the next token")
    func givesUp() async {
        backend.liveActivityError = Failed()
        let target = LiveActivityRegistrar.Target.activity(id: "order-42", attributesType: "DeliveryAttributes")

        await registrar.activityTokenReceived(Self.token, activityID: "order-42", attributesType: "DeliveryAttributes")
        await clock.advance(by: .seconds(5 + 15 + 60 + 60))
        #expect(backend.liveActivityRegistrations.count == 5)
        #expect(registrar.statuses[target] == .failed)
        #expect(clock.sleeperCount == 0)

        backend.liveActivityError = nil
        await registrar.activityTokenReceived(Self.token, activityID: "order-42", attributesType: "DeliveryAttributes")
        #expect(registrar.statuses[target] == .registered, "the same token tries again after giving up")
    }

    @Test("a newer token, the activity's end and signing out each stop a pending retry")
    func retryStops() async {
        backend.liveActivityError = Failed()
        await registrar.activityTokenReceived(Self.token, activityID: "order-42", attributesType: "DeliveryAttributes")
        backend.liveActivityError = nil
        await registrar.activityTokenReceived(Self.newer, activityID: "order-42", attributesType: "DeliveryAttributes")
        await clock.advance(by: .seconds(60))
        #expect(backend.liveActivityRegistrations.count == 2, "the old token's retry never runs")

        backend.liveActivityError = Failed()
        await registrar.activityTokenReceived(Self.token, activityID: "ride-1", attributesType: "RideAttributes")
        registrar.activityEnded(activityID: "ride-1")
        await registrar.pushToStartTokenReceived(Self.token, attributesType: "RideAttributes")
        await registrar.signingOut()
        await clock.advance(by: .seconds(600))
        #expect(backend.liveActivityRegistrations.count == 4)
        #expect(registrar.statuses.isEmpty)
    }

    @Test("signing out unregisters the tokens registered for the user, so a shared device's next user gets none")
    func signingOutUnregisters() async {
        await registrar.pushToStartTokenReceived(Self.token, attributesType: "DeliveryAttributes")
        await registrar.activityTokenReceived(Self.newer, activityID: "order-42", attributesType: "DeliveryAttributes")
        backend.liveActivityError = Failed()
        await registrar.pushToStartTokenReceived(Self.newer, attributesType: "RideAttributes")

        await registrar.signingOut()

        #expect(backend.liveActivityUnregistered == [String(repeating: "42", count: 32), Self.hex])
        #expect(registrar.statuses.isEmpty)
    }
}

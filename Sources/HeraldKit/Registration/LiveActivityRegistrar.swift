import Foundation
import HeraldModel
import Observation

/// Registers the app's ActivityKit push tokens with Herald, so a publisher can start the app's
/// Live Activities (push-to-start tokens) and update and end each one (its update token).
///
/// The app hands over what ActivityKit reports: every `Activity<Attributes>.pushToStartTokenUpdates`
/// element to ``pushToStartTokenReceived(_:attributesType:)``, every `activity.pushTokenUpdates`
/// element to ``activityTokenReceived(_:activityID:attributesType:)``, and the end of an activity
/// to ``activityEnded(activityID:)``. A token already registered is not sent again; a newer one is
/// registered in its place (the old one is pruned when APNs calls it dead). A failed registration is retried
/// after 5, 15, 60 and 60 seconds, then given up (``Status/failed``) until the next token.
@MainActor @Observable public final class LiveActivityRegistrar {
    /// What a token is for.
    public enum Target: Hashable, Sendable {
        /// Starting activities of one `ActivityAttributes` type on this device.
        case pushToStart(attributesType: String)
        /// Updating and ending one activity.
        case activity(id: String, attributesType: String)
    }

    /// Where the registration of a target's newest token stands.
    public enum Status: Sendable, Equatable {
        case registering
        case registered
        /// Attempt `attempt` failed; the next one waits for its delay.
        case waitingToRetry(attempt: Int)
        /// Every attempt failed; the next token tries again.
        case failed
    }

    /// The waits before the second, third, … attempt; one attempt more than there are waits.
    public static let retryDelays: [Duration] = [.seconds(5), .seconds(15), .seconds(60), .seconds(60)]

    /// Each target's status, for the newest token it was given.
    public private(set) var statuses: [Target: Status] = [:]

    @ObservationIgnored private let dependencies: HeraldDependencies
    @ObservationIgnored private let environment: PushEnvironment
    /// The newest token of each target, as hex.
    @ObservationIgnored private var tokens: [Target: String] = [:]
    @ObservationIgnored private var retries: [Target: Task<Void, Never>] = [:]

    /// A registrar for tokens of the app's APNs `environment` (`development` in a debug build).
    public init(dependencies: HeraldDependencies, environment: PushEnvironment = .production) {
        self.dependencies = dependencies
        self.environment = environment
    }

    /// ActivityKit handed over a push-to-start token for `attributesType` (the name of the
    /// app's `ActivityAttributes` type, as the publisher names it to start one).
    public func pushToStartTokenReceived(_ token: Data, attributesType: String) async {
        await register(.pushToStart(attributesType: attributesType), token: Self.hex(token))
    }

    /// An activity's push token arrived or changed. `activityID` is the id the publisher knows
    /// the activity by: for an activity a push started, the id it put in the attributes.
    public func activityTokenReceived(_ token: Data, activityID: String, attributesType: String) async {
        await register(.activity(id: activityID, attributesType: attributesType), token: Self.hex(token))
    }

    /// The activity ended or was dismissed on the device: its registration is not retried.
    public func activityEnded(activityID: String) {
        for target in statuses.keys {
            guard case .activity(let id, _) = target, id == activityID else { continue }
            forget(target)
        }
    }

    /// The user is signing out: retries stop, every token registered for them is unregistered (a
    /// shared device's next user gets none of their activities; a failure is left to the server's
    /// pruning) and forgotten, so the next account registers each again.
    public func signingOut() async {
        let registered = statuses.compactMap { target, status in status == .registered ? tokens[target] : nil }
        for target in Array(statuses.keys) { forget(target) }
        for token in Set(registered).sorted() {
            try? await dependencies.api.unregisterLiveActivityToken(token)
        }
    }

    private func forget(_ target: Target) {
        retries.removeValue(forKey: target)?.cancel()
        tokens[target] = nil
        statuses[target] = nil
    }

    private func register(_ target: Target, token: String) async {
        if tokens[target] == token, statuses[target] != .failed { return }
        retries.removeValue(forKey: target)?.cancel()
        tokens[target] = token
        await attempt(target, token: token, number: 1)
    }

    private func attempt(_ target: Target, token: String, number: Int) async {
        statuses[target] = .registering
        let registration: LiveActivityTokenRegistration
        switch target {
        case .pushToStart(let attributesType):
            registration = LiveActivityTokenRegistration(
                token: token, attributesType: attributesType, kind: .pushToStart, environment: environment,
                appId: dependencies.platform.appId)
        case .activity(let id, let attributesType):
            registration = LiveActivityTokenRegistration(
                token: token, attributesType: attributesType, activityId: id, environment: environment,
                appId: dependencies.platform.appId)
        }
        do {
            _ = try await dependencies.api.registerLiveActivityToken(registration)
            guard tokens[target] == token else { return }
            statuses[target] = .registered
        } catch {
            guard tokens[target] == token else { return }
            guard number <= Self.retryDelays.count else {
                statuses[target] = .failed
                return
            }
            statuses[target] = .waitingToRetry(attempt: number)
            let delay = Self.retryDelays[number - 1]
            let clock = dependencies.clock
            retries[target] = Task { [weak self] in
                do {
                    try await clock.sleep(delay)
                } catch {
                    return
                }
                guard let self, self.tokens[target] == token else { return }
                await self.attempt(target, token: token, number: number + 1)
            }
        }
    }

    /// `token` as lower-case hexadecimal digits, as APNs tokens are sent.
    static func hex(_ token: Data) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(token.count * 2)
        for byte in token {
            bytes.append(digits[Int(byte >> 4)])
            bytes.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

import Foundation
import HeraldKit
import HeraldKitTestSupport
import HeraldModel
import Testing

@Suite("Fake preferences backend keeps the server's rules")
@MainActor struct FakePreferencesBackendTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func rejection(_ patch: PreferencesPatch, on backend: FakePreferencesBackend) async -> HeraldAPIError? {
        do {
            _ = try await backend.api().updatePreferences(patch)
            return nil
        } catch {
            return error as? HeraldAPIError
        }
    }

    @Test("a snooze at most 365 days ahead of the server's clock is stored; one further is a 400 that changes nothing")
    func snoozeLimit() async throws {
        let backend = FakePreferencesBackend(now: { Self.now })
        let limit = Self.now.addingTimeInterval(TimeInterval(Limits.snoozeMaxSeconds))
        let saved = try await backend.api().updatePreferences(PreferencesPatch(snoozedUntil: .some(limit)))
        #expect(saved.snoozedUntil == limit)

        let refused = await Self.rejection(
            PreferencesPatch(snoozedUntil: .some(limit.addingTimeInterval(1))), on: backend)
        #expect(refused?.status == 400 && refused?.code == "out_of_range")
        #expect(backend.current.snoozedUntil == limit)
    }

    @Test("muted sources are checked like the server's: valid ids, at most 200, duplicates dropped")
    func mutedSourcesChecked() async throws {
        let backend = FakePreferencesBackend()
        let saved = try await backend.api().updatePreferences(PreferencesPatch(mutedSources: ["github", "github"]))
        #expect(saved.mutedSources == ["github"])

        let badID = await Self.rejection(PreferencesPatch(mutedSources: ["not an id"]), on: backend)
        #expect(badID?.status == 400)
        let tooMany = await Self.rejection(
            PreferencesPatch(mutedSources: (0...Limits.mutedSourcesMax).map { "s\($0)" }), on: backend)
        #expect(tooMany?.status == 400)
        #expect(backend.current.mutedSources == ["github"])
    }

    @Test("the sources answer most recently heard from first, muted as the stored preferences say")
    func sourcesMirrorTheMutes() async throws {
        let older = ReceivedSource(
            id: "jira", name: "Jira", muted: true, lastReceivedAt: Self.now.addingTimeInterval(-60))
        let newer = ReceivedSource(id: "github", name: "GitHub", muted: false, lastReceivedAt: Self.now)
        let backend = FakePreferencesBackend(
            stored: Preferences(mutedSources: ["github"]), heardFrom: [older, newer])
        let sources = try await backend.api().sources()

        #expect(sources.items.map(\.id) == ["github", "jira"])
        #expect(sources.items.map(\.muted) == [true, false])
        #expect(backend.sourceReads == 1)
    }
}

import Foundation
import HeraldModel
import Testing

@testable import HeraldStore

/// One behaviour every store must have, checked the same way against each store (see
/// ``SQLiteConformanceTests`` and ``PostgresConformanceTests``). Each check gets a fresh store.
enum ConformanceCheck: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case migrationsRecorded = "a fresh store has applied and recorded every migration"
    case settings = "a setting is nil until set; set-if-absent keeps the first value"
    case settingRace = "racing set-if-absent calls all answer the same stored value"
    case sharedProviderToken =
        "the shared APNs provider token: the first stored wins until stale or rejected, then the candidate replaces it"
    case sharedProviderTokenRace = "servers asking for the shared provider token at once all get the same one"
    case apiKeys = "API keys are found by hash only"
    case duplicateAPIKey = "a second key with the same hash is a constraint violation that never quotes the hash"
    case apiKeyList = "keys are listed oldest first, with their last use, without revoked ones"
    case apiKeyRevoke =
        "a revoked key is not found by its hash; revoking it again says when, an unknown id is not found"
    case apiKeyLastUse = "recording a key's use keeps the latest time, also for racing servers"
    case consoleSessionLifecycle =
        "a console session is found by its hash and seen; sign-out, idleness and age end it"
    case consoleSessionRevokedKey = "revoking a key ends its console sessions and only those"
    case consoleSessionPrune = "pruning deletes the idle and the old console sessions, and keeps the rest"
    case deviceRegistered = "upsert registers a device; environment defaults to production"
    case deviceUpdatedInPlace = "upsert of a known token updates it in place and keeps createdAt"
    case deviceMoves = "a token registered under another user moves to the new user and becomes active"
    case deviceDeleteOwnOnly = "delete removes only this user's token"
    case devicesNewestFirst = "devices are listed newest first"
    case preferencesAbsent = "STORE-01 a user with no stored preferences reads nil, so the server applies the defaults"
    case preferencesPersist = "STORE-02 updates persist and later reads return them; the next update starts from them"
    case preferencesInitial = "the stored value of a first update is the initial value as updated"
    case preferencesThrowingUpdate = "a throwing update stores nothing"
    case preferencesConcurrent = "concurrent read-modify-writes lose no update"
    case events = "analytics events are stored per user and counted"
    case appConfig = "app config is nil until set, round trips, and the last write wins"
    case ping = "ping answers"

    var testDescription: String { rawValue }

    func run(on store: some MigratedStore) async throws {
        switch self {
        case .migrationsRecorded:
            let versions = type(of: store).migrations.map(\.version)
            #expect(!versions.isEmpty)
            #expect(store.appliedMigrations == versions)
            #expect(try store.schemaVersions() == versions)
        case .settings:
            #expect(try await store.setting("user_token_secret") == nil)
            #expect(try await store.setSettingIfAbsent("user_token_secret", value: "first") == "first")
            #expect(try await store.setSettingIfAbsent("user_token_secret", value: "second") == "first")
            #expect(try await store.setting("user_token_secret") == "first")
            #expect(try await store.setting("other") == nil)
        case .settingRace:
            let answers = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<20 {
                    group.addTask { try await store.setSettingIfAbsent("secret", value: "v\(index)") }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(answers.count == 1)
            #expect(try await store.setting("secret") == answers.first)
        case .sharedProviderToken:
            let first = SharedProviderToken(token: "jwt-a", issuedAt: at(100))
            let second = SharedProviderToken(token: "jwt-b", issuedAt: at(200))
            let third = SharedProviderToken(token: "jwt-c", issuedAt: at(300))
            func share(_ candidate: SharedProviderToken, staleBefore: Double, rejected: Set<String> = [])
                async throws -> SharedProviderToken
            {
                try await store.sharedProviderToken(
                    keyID: "KEY1", candidate: candidate, staleBefore: at(staleBefore), rejected: rejected)
            }
            #expect(try await share(first, staleBefore: 0) == first, "nothing stored: the candidate")
            #expect(try await share(second, staleBefore: 99) == first, "a fresh token stays")
            #expect(
                try await store.sharedProviderToken(
                    keyID: "KEY2", candidate: second, staleBefore: at(0), rejected: []) == second,
                "each key has its own")
            #expect(try await share(second, staleBefore: 100) == second, "a stale token is replaced")
            #expect(try await share(third, staleBefore: 0, rejected: ["jwt-b"]) == third, "a rejected one too")
            #expect(try await share(first, staleBefore: 0) == third)
        case .sharedProviderTokenRace:
            let answers = try await withThrowingTaskGroup(of: SharedProviderToken.self) { group in
                for index in 0..<20 {
                    group.addTask {
                        try await store.sharedProviderToken(
                            keyID: "KEY1", candidate: SharedProviderToken(token: "jwt-\(index)", issuedAt: at(10)),
                            staleBefore: at(0), rejected: [])
                    }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1.token) }
            }
            #expect(answers.count == 1, "\(answers)")
        case .apiKeys:
            let key = APIKeyRecord(id: "k1", name: "backend", hash: "h-abc", createdAt: at(5))
            try await store.createAPIKey(key)
            #expect(try await store.apiKey(hash: "h-abc") == key)
            #expect(try await store.apiKey(hash: "k1") == nil)
            #expect(try await store.apiKey(hash: "h-other") == nil)
        case .duplicateAPIKey:
            try await store.createAPIKey(APIKeyRecord(id: "k1", name: "a", hash: "secret-hash", createdAt: t0))
            let error = try await #require(throws: StoreError.self) {
                try await store.createAPIKey(APIKeyRecord(id: "k2", name: "b", hash: "secret-hash", createdAt: t0))
            }
            #expect(error.isConstraintViolation)
            #expect(try #require(error.sql).contains("INSERT INTO api_keys"))
            #expect(!error.debugDescription.contains("secret-hash"))
            #expect(try await store.apiKey(hash: "secret-hash")?.id == "k1")
        case .apiKeyList:
            #expect(try await store.apiKeys().isEmpty)
            let older = APIKeyRecord(id: "key_b", name: "backend", hash: "h-b", createdAt: at(1))
            let newer = APIKeyRecord(id: "key_a", name: "cron job", hash: "h-a", createdAt: at(2))
            let revoked = APIKeyRecord(id: "key_c", name: "old", hash: "h-c", createdAt: at(0))
            for key in [newer, revoked, older] { try await store.createAPIKey(key) }
            #expect(try await store.revokeAPIKey(id: "key_c", at: at(3)) == .revoked)
            try await store.recordAPIKeyUse(id: "key_a", at: at(4))
            var used = newer
            used.lastUsedAt = at(4)
            #expect(try await store.apiKeys() == [older, used])
            #expect(try await store.apiKey(hash: "h-a") == used)
        case .apiKeyRevoke:
            try await store.createAPIKey(APIKeyRecord(id: "key_1", name: "a", hash: "h-1", createdAt: at(1)))
            try await store.createAPIKey(APIKeyRecord(id: "key_2", name: "b", hash: "h-2", createdAt: at(1)))
            #expect(try await store.revokeAPIKey(id: "key_1", at: at(5)) == .revoked)
            #expect(try await store.apiKey(hash: "h-1") == nil)
            #expect(try await store.apiKey(hash: "h-2")?.id == "key_2", "only that key")
            #expect(try await store.revokeAPIKey(id: "key_1", at: at(9)) == .alreadyRevoked(at(5)))
            #expect(try await store.revokeAPIKey(id: "key_nope", at: at(9)) == .notFound)
            #expect(try await store.revokeAPIKey(id: "h-2", at: at(9)) == .notFound, "by id, never by hash")
            try await store.recordAPIKeyUse(id: "key_1", at: at(10))
            #expect(try await store.apiKey(hash: "h-1") == nil, "use of a revoked key brings nothing back")
            #expect(try await store.apiKeys().map(\.id) == ["key_2"])
        case .apiKeyLastUse:
            try await store.createAPIKey(APIKeyRecord(id: "key_1", name: "a", hash: "h-1", createdAt: at(1)))
            #expect(try await store.apiKey(hash: "h-1")?.lastUsedAt == nil)
            try await store.recordAPIKeyUse(id: "key_1", at: at(20))
            try await store.recordAPIKeyUse(id: "key_1", at: at(10))
            #expect(try await store.apiKey(hash: "h-1")?.lastUsedAt == at(20), "an earlier time changes nothing")
            try await withThrowingTaskGroup(of: Void.self) { group in
                for second in 21...40 {
                    group.addTask { try await store.recordAPIKeyUse(id: "key_1", at: at(Double(second))) }
                }
                try await group.waitForAll()
            }
            #expect(try await store.apiKey(hash: "h-1")?.lastUsedAt == at(40))
            try await store.recordAPIKeyUse(id: "key_unknown", at: at(50))
        case .consoleSessionLifecycle:
            try await store.createAPIKey(APIKeyRecord(id: "key_1", name: "a", hash: "h-1", createdAt: at(1)))
            let session = ConsoleSessionRecord(hash: "s-1", apiKeyID: "key_1", createdAt: at(10), lastSeenAt: at(10))
            try await store.createConsoleSession(session)
            func look(_ hash: String = "s-1", now: Double, idle: Double = 0, age: Double = 0) async throws
                -> ConsoleSessionRecord?
            {
                try await store.consoleSession(hash: hash, now: at(now), idleBefore: at(idle), createdBefore: at(age))?
                    .session
            }
            var seen = session
            seen.lastSeenAt = at(20)
            #expect(try await look(now: 20) == seen)
            #expect(
                try await store.consoleSession(hash: "s-1", now: at(21), idleBefore: at(0), createdBefore: at(0))?.key
                    == APIKeyRecord(id: "key_1", name: "a", hash: "h-1", createdAt: at(1)))
            #expect(try await look("s-other", now: 20) == nil)
            #expect(try await look("key_1", now: 20) == nil, "by the session's hash, never the key's id")
            // Seen at 21: idle since 16 is not idle yet; seen at 30, idle since 31 ends it.
            #expect(try await look(now: 30, idle: 16)?.lastSeenAt == at(30))
            #expect(try await look(now: 40, idle: 31) == nil)
            #expect(try await look(now: 41) == nil, "an idle session is deleted, not only hidden")
            try await store.createConsoleSession(
                ConsoleSessionRecord(hash: "s-2", apiKeyID: "key_1", createdAt: at(50), lastSeenAt: at(50)))
            #expect(try await look("s-2", now: 60, age: 50) != nil)
            #expect(try await look("s-2", now: 61, age: 51) == nil, "past the absolute expiry, however active")
            #expect(try await look("s-2", now: 62) == nil)
            try await store.createConsoleSession(
                ConsoleSessionRecord(hash: "s-3", apiKeyID: "key_1", createdAt: at(70), lastSeenAt: at(70)))
            #expect(try await store.deleteConsoleSession(hash: "s-3"))
            #expect(try await store.deleteConsoleSession(hash: "s-3") == false)
            #expect(try await look("s-3", now: 71) == nil)
            let duplicate = try await #require(throws: StoreError.self) {
                try await store.createConsoleSession(
                    ConsoleSessionRecord(hash: "s-4", apiKeyID: "key_none", createdAt: at(80), lastSeenAt: at(80)))
            }
            #expect(duplicate.isConstraintViolation, "a session needs a key that exists")
        case .consoleSessionRevokedKey:
            try await store.createAPIKey(APIKeyRecord(id: "key_1", name: "a", hash: "h-1", createdAt: at(1)))
            try await store.createAPIKey(APIKeyRecord(id: "key_2", name: "b", hash: "h-2", createdAt: at(1)))
            for (hash, key) in [("s-1", "key_1"), ("s-2", "key_1"), ("s-3", "key_2")] {
                try await store.createConsoleSession(
                    ConsoleSessionRecord(hash: hash, apiKeyID: key, createdAt: at(10), lastSeenAt: at(10)))
            }
            #expect(try await store.revokeAPIKey(id: "key_1", at: at(20)) == .revoked)
            for hash in ["s-1", "s-2"] {
                #expect(
                    try await store.consoleSession(hash: hash, now: at(21), idleBefore: at(0), createdBefore: at(0))
                        == nil)
            }
            #expect(
                try await store.consoleSession(hash: "s-3", now: at(21), idleBefore: at(0), createdBefore: at(0))?
                    .session.apiKeyID == "key_2")
            #expect(
                try await store.pruneConsoleSessions(idleBefore: at(0), createdBefore: at(0)) == 0,
                "the revoked key's sessions were deleted with it")
        case .consoleSessionPrune:
            try await store.createAPIKey(APIKeyRecord(id: "key_1", name: "a", hash: "h-1", createdAt: at(1)))
            let sessions = [("idle", 10.0, 10.0), ("old", 5.0, 100.0), ("live", 50.0, 100.0)]
            for (hash, created, seen) in sessions {
                try await store.createConsoleSession(
                    ConsoleSessionRecord(hash: hash, apiKeyID: "key_1", createdAt: at(created), lastSeenAt: at(seen)))
            }
            #expect(try await store.pruneConsoleSessions(idleBefore: at(20), createdBefore: at(6)) == 2)
            #expect(try await store.pruneConsoleSessions(idleBefore: at(20), createdBefore: at(6)) == 0)
            #expect(
                try await store.consoleSession(hash: "live", now: at(101), idleBefore: at(0), createdBefore: at(0))?
                    .session.createdAt == at(50))
        case .deviceRegistered:
            let device = try await store.upsertDevice(userID: "u1", Self.iphone, at: at(1))
            #expect(
                device
                    == Device(
                        token: "tok-1", userId: "u1", provider: .apns, platform: .ios, environment: .production,
                        appVersion: "1.2.0", locale: "nl-NL", timeZone: "Europe/Amsterdam", active: true,
                        createdAt: at(1), updatedAt: at(1)))
            #expect(try await store.devices(userID: "u1") == [device])
        case .deviceUpdatedInPlace:
            _ = try await store.upsertDevice(userID: "u1", Self.iphone, at: at(1))
            var changed = Self.iphone
            changed.appVersion = "1.3.0"
            changed.environment = .development
            changed.locale = nil
            let device = try await store.upsertDevice(userID: "u1", changed, at: at(50))
            #expect(device.appVersion == "1.3.0")
            #expect(device.environment == .development)
            #expect(device.locale == nil)
            #expect(device.createdAt == at(1))
            #expect(device.updatedAt == at(50))
            #expect(try await store.devices(userID: "u1") == [device])
        case .deviceMoves:
            _ = try await store.upsertDevice(userID: "alice", Self.iphone, at: at(1))
            // As if push delivery had deactivated the token.
            try await store.write { db in try db.execute("UPDATE devices SET active = 0 WHERE token = \("tok-1")") }
            #expect(try await store.devices(userID: "alice").first?.active == false)
            let moved = try await store.upsertDevice(userID: "bob", Self.iphone, at: at(10))
            #expect(moved.userId == "bob")
            #expect(moved.active)
            #expect(moved.createdAt == at(10))
            #expect(try await store.devices(userID: "alice").isEmpty)
            #expect(try await store.devices(userID: "bob") == [moved])
        case .deviceDeleteOwnOnly:
            _ = try await store.upsertDevice(userID: "alice", Self.iphone, at: at(1))
            #expect(try await store.deleteDevice(userID: "bob", token: "tok-1") == false)
            #expect(try await store.devices(userID: "alice").count == 1)
            #expect(try await store.deleteDevice(userID: "alice", token: "tok-1"))
            #expect(try await store.deleteDevice(userID: "alice", token: "tok-1") == false)
            #expect(try await store.devices(userID: "alice").isEmpty)
        case .devicesNewestFirst:
            _ = try await store.upsertDevice(userID: "u1", Self.iphone, at: at(1))
            _ = try await store.upsertDevice(
                userID: "u1", DeviceRegistration(token: "tok-2", provider: .fcm, platform: .android), at: at(2))
            _ = try await store.upsertDevice(
                userID: "u1", DeviceRegistration(token: "tok-3", provider: .expo, platform: .ios), at: at(3))
            _ = try await store.upsertDevice(
                userID: "u2", DeviceRegistration(token: "tok-4", provider: .fcm, platform: .android), at: at(4))
            #expect(try await store.devices(userID: "u1").map(\.token) == ["tok-3", "tok-2", "tok-1"])
            _ = try await store.upsertDevice(userID: "u1", Self.iphone, at: at(5))
            #expect(try await store.devices(userID: "u1").map(\.token) == ["tok-1", "tok-3", "tok-2"])
        case .preferencesAbsent:
            #expect(try await store.preferences(userID: "u1") == nil)
        case .preferencesPersist:
            let stored = try await store.updatePreferences(userID: "u1", initial: Preferences()) { preferences in
                preferences.categories["promotions"] = false
                preferences.osPermissionGranted = true
                preferences.quietHours = QuietHours(start: "22:00", end: "07:00", timeZone: "Europe/Amsterdam")
            }
            #expect(stored.categories == ["promotions": false])
            #expect(try await store.preferences(userID: "u1") == stored)
            let next = try await store.updatePreferences(userID: "u1", initial: Preferences(globalEnabled: false)) {
                preferences in
                #expect(preferences.globalEnabled)
                preferences.disabledTypes = ["promo.flash"]
                preferences.quietHours = nil
            }
            #expect(
                next
                    == Preferences(
                        globalEnabled: true, osPermissionGranted: true, categories: ["promotions": false],
                        disabledTypes: ["promo.flash"], quietHours: nil))
            #expect(try await store.preferences(userID: "u1") == next)
            #expect(try await store.preferences(userID: "u2") == nil)
        case .preferencesInitial:
            let initial = Preferences(globalEnabled: true, osPermissionGranted: nil, categories: ["orders": true])
            let stored = try await store.updatePreferences(userID: "u1", initial: initial) {
                $0.osPermissionGranted = false
            }
            #expect(stored == Preferences(osPermissionGranted: false, categories: ["orders": true]))
            #expect(try await store.preferences(userID: "u1")?.osPermissionGranted == false)
        case .preferencesThrowingUpdate:
            await #expect(throws: Refused.self) {
                try await store.updatePreferences(userID: "u1", initial: Preferences()) { preferences in
                    preferences.globalEnabled = false
                    throw Refused()
                }
            }
            #expect(try await store.preferences(userID: "u1") == nil)
        case .preferencesConcurrent:
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<40 {
                    group.addTask {
                        _ = try await store.updatePreferences(userID: "u1", initial: Preferences()) {
                            $0.disabledTypes.append("type.\(index)")
                        }
                    }
                }
                try await group.waitForAll()
            }
            let stored = try #require(try await store.preferences(userID: "u1"))
            #expect(Set(stored.disabledTypes) == Set((0..<40).map { "type.\($0)" }))
        case .events:
            #expect(try await store.eventCount(userID: "u1") == 0)
            try await store.insertEvents(
                userID: "u1",
                [
                    AnalyticsEvent(name: "notification_banner_shown", at: at(1)),
                    AnalyticsEvent(
                        name: "notification_consent_accepted", at: at(2),
                        properties: [
                            "screen": .string("home"), "attempt": .number(2), "nested": .object(["a": .bool(true)]),
                        ]),
                ], receivedAt: at(3))
            try await store.insertEvents(userID: "u2", [AnalyticsEvent(name: "x", at: at(1))], receivedAt: at(3))
            try await store.insertEvents(userID: "u2", [], receivedAt: at(3))
            #expect(try await store.eventCount(userID: "u1") == 2)
            #expect(try await store.eventCount(userID: "u2") == 1)
            let properties = try await store.read { db in
                try db.query("SELECT properties FROM analytics_events WHERE user_id = \("u1") ORDER BY seq") {
                    row throws(StoreError) in try row.optionalText("properties")
                }
            }
            #expect(properties == [nil, #"{"attempt":2,"nested":{"a":true},"screen":"home"}"#])
        case .appConfig:
            #expect(try await store.appConfig() == nil)
            let document = AppConfigDocument(
                update: UpdatePolicy(
                    ios: PlatformUpdatePolicy(minimumVersion: "2.0.0", storeURL: "https://apps.apple.com/app/id1")),
                deepLinks: DeepLinkPolicy(allowedPrefixes: ["/orders", "https://example.com/"]))
            try await store.setAppConfig(document, at: at(1))
            #expect(try await store.appConfig() == document)
            let replacement = AppConfigDocument(deepLinks: DeepLinkPolicy(allowedPrefixes: []))
            try await store.setAppConfig(replacement, at: at(2))
            #expect(try await store.appConfig() == replacement)
        case .ping:
            try await store.ping()
        }
    }

    private struct Refused: Error {}

    private static let iphone = DeviceRegistration(
        token: "tok-1", provider: .apns, platform: .ios, appVersion: "1.2.0", locale: "nl-NL",
        timeZone: "Europe/Amsterdam")
}

@Suite("Store conformance: SQLite")
struct SQLiteConformanceTests {
    @Test("SQLite store", arguments: ConformanceCheck.allCases)
    func conforms(_ check: ConformanceCheck) async throws {
        try await withStore { (store) async throws in try await check.run(on: store) }
    }
}

@Suite(
    "Store conformance: PostgreSQL",
    .enabled(if: PostgresTestDatabase.url != nil, PostgresTestDatabase.skipReason))
struct PostgresConformanceTests {
    @Test("PostgreSQL store", arguments: ConformanceCheck.allCases)
    func conforms(_ check: ConformanceCheck) async throws {
        try await PostgresTestDatabase.withStore { store in try await check.run(on: store) }
    }
}

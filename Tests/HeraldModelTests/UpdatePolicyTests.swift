import Foundation
import HeraldModel
import Testing

@Suite("Semantic versions")
struct SemanticVersionTests {
    func v(_ text: String) throws -> SemanticVersion { try #require(SemanticVersion(text)) }

    @Test("numeric parts compare as numbers")
    func numeric() throws {
        #expect(try v("1.10.0") > v("1.9.9"))
        #expect(try v("2.0.0") > v("1.99.99"))
        #expect(try v("1.7.1") > v("1.7.0"))
        #expect(try v("0.0.1") < v("0.1.0"))
    }

    @Test("missing parts are zero")
    func shortForms() throws {
        #expect(try v("1.7") == v("1.7.0"))
        #expect(try v("2") == v("2.0.0"))
        #expect(try v("1.7").description == "1.7.0")
    }

    @Test("pre-releases order below their release, as Semantic Versioning orders them")
    func prerelease() throws {
        let ordered = [
            "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2", "1.0.0-beta.11",
            "1.0.0-rc.1", "1.0.0", "1.0.1-0", "1.0.1",
        ]
        let versions = try ordered.map(v)
        for (lower, higher) in zip(versions, versions.dropFirst()) {
            #expect(lower < higher, "\(lower) < \(higher)")
            #expect(!(higher < lower))
        }
        #expect(versions.shuffled().sorted() == versions)
    }

    @Test("build metadata is kept for display and ignored for order")
    func build() throws {
        let built = try v("1.2.3+build.5")
        #expect(try built == v("1.2.3"))
        #expect(built.description == "1.2.3+build.5")
        #expect(Set([built, try v("1.2.3")]).count == 1)
    }

    @Test(
        "invalid strings are rejected",
        arguments: [
            "", "1.", ".1", "1..2", "1.2.3.4", "v1.2.3", "01.2.3", "1.02.3", "1.2.3-", "1.2.3+", "1.2.3-01", "a.b.c",
            " 1.2.3", "1.2.3 ", "-1.2.3", "1.2.3-beta..1", "1.2.3-bet@", "1.2.3 (45)", "1.2.x",
            "99999999999999999999.0.0", "+1.2.3",
        ])
    func invalid(text: String) {
        #expect(SemanticVersion(text) == nil)
    }

    @Test("description round-trips and JSON uses the string form")
    func roundTrip() throws {
        for text in ["0.0.0", "1.2.3", "1.2.3-rc.1", "10.20.30-alpha.beta+exp.sha.5114f85"] {
            let version = try v(text)
            #expect(version.description == text)
            #expect(SemanticVersion(version.description) == version)
        }
        let data = try JSONEncoder().encode([try v("1.7.0")])
        #expect(String(decoding: data, as: UTF8.self) == #"["1.7.0"]"#)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([SemanticVersion].self, from: Data(#"["1.x"]"#.utf8))
        }
    }
}

@Suite("Update decisions")
struct UpdateDecisionTests {
    let config = AppConfigDocument(
        update: UpdatePolicy(
            ios: PlatformUpdatePolicy(minimumVersion: "1.7.0", storeURL: "https://apps.apple.com/app/id1"),
            android: PlatformUpdatePolicy(
                minimumVersion: "1.7.0", storeURL: "https://play.google.com/store/apps/details?id=x",
                sideloadPrompt: true)
        )
    )

    @Test("UPDATE-01 no policy for the platform hides the prompt")
    func noPolicy() {
        #expect(AppConfigDocument().decision(platform: .ios, version: "1.0.0", installSource: "app_store") == nil)
        let androidOnly = AppConfigDocument(update: UpdatePolicy(android: config.update?.android))
        #expect(androidOnly.decision(platform: .ios, version: "1.0.0", installSource: "app_store") == nil)
        #expect(androidOnly.decision(platform: .android, version: "1.0.0", installSource: "play_store") != nil)
    }

    @Test("UPDATE-01 no installer info: no decision at all, the prompt stays hidden")
    func unknownInstaller() {
        for platform in [DevicePlatform.ios, .android] {
            #expect(config.decision(platform: platform, version: "1.0.0", installSource: nil) == nil)
            #expect(config.decision(platform: platform, version: "1.0.0", installSource: "") == nil)
        }
    }

    @Test("UPDATE-02 an installed version below the minimum asks for an update")
    func versionBelowMinimum() {
        let decision = config.decision(platform: .ios, version: "1.6.9", installSource: "app_store")
        #expect(
            decision
                == UpdateDecision(kind: .version, minimumVersion: "1.7.0", storeURL: "https://apps.apple.com/app/id1"))
        #expect(config.decision(platform: .ios, version: "1.7.0-beta.1", installSource: "app_store")?.kind == .version)
        for upToDate in ["1.7.0", "1.7", "1.10.0", "2.0.0"] {
            #expect(
                config.decision(platform: .ios, version: upToDate, installSource: "app_store")?.kind
                    == UpdateDecision.Kind.none, "\(upToDate)")
        }
        // An unreadable or missing version cannot be compared, so there is no prompt.
        #expect(
            config.decision(platform: .ios, version: "garbage", installSource: "app_store")?.kind
                == UpdateDecision.Kind.none)
        #expect(
            config.decision(platform: .ios, version: nil, installSource: "app_store")?.kind == UpdateDecision.Kind.none)
        #expect(
            config.decision(platform: .android, version: "1.0.0", installSource: "com.android.vending")?.kind
                == .version)
    }

    @Test("UPDATE-03 a sideloaded Android install with the prompt on is sent to the store, over the version update")
    func sideloaded() {
        for source in ["sideload", "com.google.android.packageinstaller", "com.amazon.venezia", "adb"] {
            #expect(
                config.decision(platform: .android, version: "1.0.0", installSource: source)?.kind == .store,
                "\(source)")
            #expect(
                config.decision(platform: .android, version: "9.0.0", installSource: source)?.kind == .store,
                "\(source)")
        }
        for store in ["play_store", "com.android.vending"] {
            #expect(
                config.decision(platform: .android, version: "9.0.0", installSource: store)?.kind
                    == UpdateDecision.Kind.none)
        }
        var off = config
        off.update?.android?.sideloadPrompt = false
        #expect(off.decision(platform: .android, version: "1.0.0", installSource: "sideload")?.kind == .version)
        // iOS never gets the store prompt.
        #expect(
            config.decision(platform: .ios, version: "9.0.0", installSource: "sideload")?.kind
                == UpdateDecision.Kind.none)
    }

    @Test("UPDATE-04 no decision is forced: the answer carries no forced flag")
    func notForced() throws {
        let decision = try #require(config.decision(platform: .ios, version: "1.0.0", installSource: "app_store"))
        let json = try #require(
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(decision)) as? [String: Any])
        #expect(Set(json.keys) == ["kind", "minimumVersion", "storeURL"])
        #expect(json["kind"] as? String == "version")
        #expect(Set([UpdateDecision.Kind.none, .version, .store].map(\.rawValue)) == ["none", "version", "store"])
    }

    @Test("app-config validation")
    func validation() throws {
        try config.validate()
        try AppConfigDocument(deepLinks: DeepLinkPolicy(allowedPrefixes: ["/orders", "myapp://"]), catalog: .standard)
            .validate()
        var badVersion = config
        badVersion.update?.ios?.minimumVersion = "1.x"
        expectInvalid("invalid", field: "update.ios.minimumVersion") { try badVersion.validate() }
        var badURL = config
        badURL.update?.android?.storeURL = "javascript:alert(1)"
        expectInvalid("invalid", field: "update.android.storeURL") { try badURL.validate() }
        expectInvalid("too_many", field: "deepLinks.allowedPrefixes") {
            try AppConfigDocument(deepLinks: DeepLinkPolicy(allowedPrefixes: (0...100).map { "/p\($0)" })).validate()
        }
        expectInvalid("too_long", field: "deepLinks.allowedPrefixes[0]") {
            try AppConfigDocument(
                deepLinks: DeepLinkPolicy(allowedPrefixes: ["/" + String(repeating: "a", count: 512)])
            ).validate()
        }
        expectInvalid("invalid", field: "deepLinks.allowedPrefixes[0]") {
            try AppConfigDocument(deepLinks: DeepLinkPolicy(allowedPrefixes: ["javascript:"])).validate()
        }
        var badCatalog = Catalog.standard
        badCatalog.categories[0].id = "Orders!"
        expectInvalid("invalid", field: "catalog.categories[0].id") {
            try AppConfigDocument(catalog: badCatalog).validate()
        }
    }
}

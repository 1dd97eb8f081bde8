import Foundation
import Testing

/// HeraldModel is all an app links besides HeraldKit: it holds only what client and server share.
/// Provider payloads (APNs, FCM, Expo) live in HeraldPush; the publisher API, the push policy,
/// the HTML sanitizer and the JSON writer in HeraldServerModel. A new public type here is a
/// decision: add it to the allowlist only if an app needs it.
@Suite("What ships to apps")
struct PublicSurfaceTests {
    static let allowlist: Set<String> = [
        // The inbox and its live counts; the answer to an open reported from a push tap.
        "InboxNotification", "NotificationDetail", "NotificationPage", "Counts", "InboxCursor", "NotificationOpened",
        // The category catalog and where a tap goes.
        "Catalog", "CatalogCategory", "CatalogTypeRule", "TapRoute",
        // Where a tap leads (an inbox row's destination); the console's preview resolves it too.
        "NotificationDestination",
        // Preferences, quiet hours and the OS permission.
        "Preferences", "PreferencesPatch", "QuietHours", "PermissionDecision", "PermissionStatus", "PermissionSync",
        // The digest switch and the per-source mutes of the preferences screen.
        "DigestSettings", "ReceivedSource", "ReceivedSources",
        // Devices and push registration; the data a push carries to the app.
        "Device", "DeviceList", "DevicePlatform", "DeviceRegistration", "PushEnvironment", "PushProvider", "PushData",
        // Live Activity tokens the app registers (ActivityKit's update and push-to-start tokens).
        "LiveActivityToken", "LiveActivityTokenKind", "LiveActivityTokenRegistration",
        // Analytics events.
        "AnalyticsEvent", "AnalyticsEventBatch", "AnalyticsEventReceipt",
        // Remote app config and the update decision.
        "AppConfigDocument", "AppConfigResponse", "DeepLinkPolicy", "PlatformUpdatePolicy", "UpdateDecision",
        "UpdatePolicy", "SemanticVersion", "FrequencyCap", "DigestTemplate",
        // Errors, limits and validation both sides apply.
        "ErrorEnvelope", "ValidationError", "Validate", "Limits",
        // Free-form JSON (`data`, analytics properties) and nested type names.
        "JSONValue", "Kind", "Body",
    ]

    /// `Sources/<module>` of this package, found from this file's path.
    static func sources(_ module: String) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/\(module)")
    }

    static func swiftFiles(_ module: String) throws -> [(name: String, text: String)] {
        let directory = sources(module)
        let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)
        var files: [(String, String)] = []
        while let url = enumerator?.nextObject() as? URL {
            guard url.pathExtension == "swift" else { continue }
            files.append((url.lastPathComponent, try String(contentsOf: url, encoding: .utf8)))
        }
        return files.sorted { $0.0 < $1.0 }
    }

    /// Every `public` type declaration (nested ones included), by name.
    static func publicTypes(in text: String) -> [String] {
        let pattern = #/public\s+(?:final\s+|indirect\s+)*(?:struct|enum|class|protocol|actor|typealias)\s+(\w+)/#
        return text.matches(of: pattern).map { String($0.output.1) }
    }

    @Test func heraldModelsPublicTypesAreTheAllowedOnes() throws {
        let files = try Self.swiftFiles("HeraldModel")
        #expect(files.count > 10, "HeraldModel's sources were not found at \(Self.sources("HeraldModel").path)")
        var found: [String: String] = [:]
        for file in files {
            for name in Self.publicTypes(in: file.text) { found[name] = file.name }
        }
        let unexpected = found.filter { !Self.allowlist.contains($0.key) }
        #expect(unexpected.isEmpty, "public types an app does not need: \(unexpected.sorted { $0.key < $1.key })")
        let gone = Self.allowlist.subtracting(found.keys)
        #expect(gone.isEmpty, "allowed but no longer there (drop them from the list): \(gone.sorted())")
        // The types that moved out stay out.
        for serverOnly in ["APNsPayload", "FCMRequest", "ExpoMessage", "PushPayload", "PushPolicy", "HTMLSanitizer"] {
            #expect(found[serverOnly] == nil, "\(serverOnly) is server-only")
        }
    }

    /// The server links FoundationEssentials alone: never the NSString-based Foundation or
    /// FoundationNetworking with its libcurl (about 6 MiB of an idle server's memory), nor
    /// FoundationInternationalization with ICU (about 2 MiB), which `TimeZones` loads with the
    /// first named time zone. One import of any of them in a module `herald` links would load it
    /// into every server (README "Benchmarks").
    @Test func theServerModulesImportOnlyFoundationEssentials() throws {
        let serverModules = [
            "HeraldModel", "HeraldServerModel", "HeraldCrypto", "HeraldLog", "HeraldThreads", "HeraldHTTP",
            "HeraldHTTP2", "HeraldStore", "HeraldPush", "HeraldSandbox", "HeraldServer", "herald",
        ]
        for module in serverModules {
            let files = try Self.swiftFiles(module)
            #expect(!files.isEmpty, "\(module)'s sources were not found")
            for file in files {
                // HeraldModel, which apps link too, imports Foundation only where FoundationEssentials
                // is not to be had (Apple's platforms): that `#else` branch goes, the first is checked.
                let text = file.text.replacing(
                    #/#if canImport\(FoundationEssentials\)((?:\n[ \t]*import \w+)+)\n#else\n[ \t]*import Foundation\n#endif/#
                ) { "\($0.output.1)\n" }
                let imports = text.matches(
                    of:
                        #/(?m)^[ \t]*(?:@[\w()]+[ \t]+)*(?:(?:public|package|internal|fileprivate|private)[ \t]+)?import[ \t]+(?:(?:struct|class|enum|protocol|func|var|let|typealias)[ \t]+)?(Foundation|FoundationNetworking|FoundationInternationalization)\b/#
                )
                for found in imports {
                    Issue.record("\(module)/\(file.name) imports \(found.output.1)")
                }
            }
        }
    }

    @Test func theClientModulesImportNothingServerSide() throws {
        let allowed: [String: Set<String>] = [
            // Glibc: `dlopen` of FoundationInternationalization with the first named time zone (Linux).
            "HeraldModel": ["Foundation", "FoundationEssentials", "FoundationInternationalization", "Glibc"],
            "HeraldKit": ["Foundation", "FoundationNetworking", "Observation", "HeraldModel"],
        ]
        for (module, modules) in allowed {
            let files = try Self.swiftFiles(module)
            #expect(!files.isEmpty, "\(module)'s sources were not found")
            for file in files {
                let imports = file.text.matches(
                    of:
                        #/(?m)^[ \t]*(?:@\w+[ \t]+)?import[ \t]+(?:(?:struct|class|enum|protocol|func|var|let|typealias)[ \t]+)?(\w+)/#
                ).map {
                    String($0.output.1)
                }
                for name in imports where !modules.contains(name) {
                    Issue.record("\(module)/\(file.name) imports \(name)")
                }
            }
        }
    }
}

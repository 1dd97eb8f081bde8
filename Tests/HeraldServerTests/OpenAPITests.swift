import Foundation
import HeraldModel
import HeraldPush
import HeraldServerModel
import Testing

@testable import HeraldServer

/// `Resources/openapi.json` is the one source of the HTTP contract: served as written, with an
/// example for every schema, and each example decodes into the model type the server and
/// HeraldKit use for it. (`OperationsTests.openAPIMatchesRoutes` holds it to the served routes.)
@Suite("openapi.json, the one source of the contract")
struct OpenAPITests {
    static func document() throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(OpenAPIDocument.bytes))
        return try #require(object as? [String: Any])
    }

    /// Schemas that stand for a Decodable model type: their examples must decode into it with
    /// the server's own decoder (RFC 3339 times, strict keys where the type is strict).
    static let models: Set<String> = [
        "Error",
        "Counts",
        "InboxNotification",
        "NotificationPage",
        "NotificationDetail",
        "NotificationData",
        "Preferences",
        "PreferencesPatch",
        "QuietHours",
        "PermissionDecision",
        "PermissionSync",
        "DeviceRegistration",
        "Device",
        "DeviceList",
        "AnalyticsEvent",
        "AnalyticsEventBatch",
        "AnalyticsEventReceipt",
        "Catalog",
        "CatalogCategory",
        "CatalogTypeRule",
        "TapRoute",
        "DeepLinkPolicy",
        "PlatformUpdatePolicy",
        "UpdatePolicy",
        "UpdateDecision",
        "AppConfigDocument",
        "AppConfigResponse",
        "PushOptions",
        "PublishRequest",
        "PublishedNotification",
        "PublishResponse",
        "BroadcastRequest",
        "PushData",
        "PushPreview",
        "ConsoleSignIn",
        "LiveActivityTokenRegistration",
        "LiveActivityToken",
        "LiveActivityRequest",
        "DigestSettings",
        "DigestTemplate",
        "FrequencyCap",
        "NotificationSource",
        "ReceivedSource",
        "ReceivedSourceList",
        "NotificationOpened",
        "WebhookRequest",
    ]

    static func decode(_ schema: String, _ data: Data) throws {
        func decode<T: Decodable>(_ type: T.Type) throws { _ = try JSONBody.decoder.decode(type, from: data) }
        switch schema {
        case "Error": try decode(ErrorEnvelope.self)
        case "Counts": try decode(Counts.self)
        case "InboxNotification": try decode(InboxNotification.self)
        case "NotificationPage": try decode(NotificationPage.self)
        case "NotificationDetail": try decode(NotificationDetail.self)
        case "NotificationData": try decode([String: JSONValue].self)
        case "Preferences": try decode(Preferences.self)
        case "PreferencesPatch": try decode(PreferencesPatch.self)
        case "QuietHours": try decode(QuietHours.self)
        case "PermissionDecision": try decode(PermissionDecision.self)
        case "PermissionSync": try decode(PermissionSync.self)
        case "DeviceRegistration": try decode(DeviceRegistration.self)
        case "Device": try decode(Device.self)
        case "DeviceList": try decode(DeviceList.self)
        case "AnalyticsEvent": try decode(AnalyticsEvent.self)
        case "AnalyticsEventBatch": try decode(AnalyticsEventBatch.self)
        case "AnalyticsEventReceipt": try decode(AnalyticsEventReceipt.self)
        case "Catalog": try decode(Catalog.self)
        case "CatalogCategory": try decode(CatalogCategory.self)
        case "CatalogTypeRule": try decode(CatalogTypeRule.self)
        case "TapRoute": try decode(TapRoute.self)
        case "DeepLinkPolicy": try decode(DeepLinkPolicy.self)
        case "PlatformUpdatePolicy": try decode(PlatformUpdatePolicy.self)
        case "UpdatePolicy": try decode(UpdatePolicy.self)
        case "UpdateDecision": try decode(UpdateDecision.self)
        case "AppConfigDocument": try decode(AppConfigDocument.self)
        case "AppConfigResponse": try decode(AppConfigResponse.self)
        case "PushOptions": try decode(PushOptions.self)
        case "PublishRequest": try decode(PublishRequest.self)
        case "PublishedNotification": try decode(PublishedNotification.self)
        case "PublishResponse": try decode(PublishResponse.self)
        case "BroadcastRequest": try decode(BroadcastRequest.self)
        case "PushData": try decode(PushData.self)
        case "PushPreview": try decode(PushPreview.self)
        case "ConsoleSignIn": try decode(ConsoleSignInRequest.self)
        case "LiveActivityTokenRegistration": try decode(LiveActivityTokenRegistration.self)
        case "LiveActivityToken": try decode(LiveActivityToken.self)
        case "LiveActivityRequest": try decode(LiveActivityRequest.self)
        case "DigestSettings": try decode(DigestSettings.self)
        case "DigestTemplate": try decode(DigestTemplate.self)
        case "FrequencyCap": try decode(FrequencyCap.self)
        case "NotificationSource": try decode(NotificationSource.self)
        case "ReceivedSource": try decode(ReceivedSource.self)
        case "ReceivedSourceList": try decode(ReceivedSources.self)
        case "NotificationOpened": try decode(NotificationOpened.self)
        case "WebhookRequest": try decode(WebhookCreateRequest.self)
        default: Issue.record("no model type for \(schema)")
        }
    }

    /// Answers only the server writes (no Decodable type): their examples are checked against the
    /// schema's required properties.
    static let serverWritten: Set<String> = [
        "Status", "Broadcast", "BroadcastList", "Delivery", "DeliveryList", "PushAPS", "ConsoleSession",
        "LiveActivityPush", "Message", "MessageList", "MessageCancellation",
        "Webhook", "WebhookCreated", "WebhookList", "WebhookEvent", "WebhookDelivery", "WebhookDeliveryList",
    ]

    @Test func everySchemaHasAnExampleThatDecodesIntoItsModelType() throws {
        let components = try #require(try Self.document()["components"] as? [String: Any])
        let schemas = try #require(components["schemas"] as? [String: [String: Any]])
        #expect(Set(schemas.keys) == Self.models.union(Self.serverWritten), "schemas without a check")
        for (name, schema) in schemas.sorted(by: { $0.key < $1.key }) {
            let examples = schema["examples"] as? [Any] ?? []
            #expect(!examples.isEmpty, "\(name) has no example")
            for example in examples {
                let required = schema["required"] as? [String] ?? []
                if let object = example as? [String: Any] {
                    let absent = required.filter { object[$0] == nil }
                    #expect(absent.isEmpty, "\(name)'s example lacks \(absent)")
                } else {
                    Issue.record("\(name)'s example is not an object")
                }
                guard Self.models.contains(name) else { continue }
                let data = try JSONSerialization.data(withJSONObject: example)
                do {
                    try Self.decode(name, data)
                } catch {
                    Issue.record("\(name)'s example does not decode: \(error)")
                }
            }
        }
    }

    @Test func everyOperationDocumentsTheAnswersAnyCallCanGet() throws {
        let paths = try #require(try Self.document()["paths"] as? [String: [String: Any]])
        let methods: Set = ["get", "post", "put", "patch", "delete"]
        for (path, operations) in paths {
            for (method, value) in operations where methods.contains(method) {
                let operation = try #require(value as? [String: Any])
                let responses = operation["responses"] as? [String: Any] ?? [:]
                // Any request can run out of time and any store call can find PostgreSQL gone.
                #expect(responses["503"] != nil, "\(method) \(path) does not document 503")
                // Every publisher call takes from its API key's call rate.
                let security = operation["security"] as? [[String: Any]] ?? []
                if security.contains(where: { $0["apiKey"] != nil }) {
                    #expect(responses["429"] != nil, "\(method) \(path) does not document 429")
                }
            }
        }
    }

    @Test func theServedDocumentIsTheResourceAsWritten() async throws {
        try await withServer { server in
            let response = try await server.get("/openapi.json")
            #expect(response.status == 200)
            #expect(response.header("Content-Type")?.hasPrefix("application/json") == true)
            #expect(response.body == OpenAPIDocument.bytes)
        }
    }
}

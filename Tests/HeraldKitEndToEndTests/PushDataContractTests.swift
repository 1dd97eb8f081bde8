import Foundation
import HeraldModel
import HeraldPush
import HeraldServerModel
import Testing

/// The publisher's push preview, fetched from the real server, read as a device would.
@Suite("Push data contract (end to end)", .serialized)
struct PushDataContractTests {
    @Test("PUSH-12 a fetched push-preview's data decodes into the data contract, the same for every provider")
    func previewDecodes() async throws {
        try await withEndToEndServer { server in
            let id = try await server.publish(
                to: "alice", type: "order.shipped", title: "Shipped", body: "Arrives Friday",
                data: ["orderId": "42", "eventKind": "order.webhook"], deepLink: "/orders/42",
                push: PushOptions(send: true, priority: .high, sound: "default"))
            let response = try await server.publisherRequest("GET", "/v1/notifications/\(id)/push-preview")
            #expect(response.status == 200, "\(response.text)")
            let preview = try response.decode(PushPreview.self)

            // As the tap handler reads it, from the raw JSON object a provider delivers.
            let object = try #require((try response.json() as? [String: Any])?["data"] as? [String: Any])
            let dataJSON = try JSONSerialization.data(withJSONObject: object)
            let data = try JSONDecoder().decode(PushData.self, from: dataJSON)
            #expect(data.notificationId == id && data.type == "order.shipped" && data.deepLink == "/orders/42")
            #expect(!data.hasDetail && data.eventKind == "order.webhook" && data.publisherData == ["orderId": "42"])
            #expect(PushData(preview.apns.data) == data)
            #expect(PushData(preview.fcm.message.data) == data)
            #expect(PushData(preview.expo.data) == data)
            #expect(preview.apns.aps.badge == 1 && preview.expo.badge == 1)

            let missing = try await server.publisherRequest("GET", "/v1/notifications/nope/push-preview")
            #expect(missing.status == 404 && missing.errorCode == "not_found")
        }
    }
}

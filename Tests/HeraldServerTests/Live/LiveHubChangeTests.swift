import Foundation
import HeraldHTTPTestSupport
import HeraldStore
import Testing

@testable import HeraldServer

/// The hub's side of changes it hears of from outside the request that made them (a NOTIFY
/// from another process, the listener's resync), on SQLite, where they are told by hand.
@Suite("Live hub: changes heard from elsewhere")
struct LiveHubChangeTests {
    /// Writes a notification straight into the store, as another process would: the hub hears nothing.
    private func writeElsewhere(_ server: TestServer, to user: String, id: String) async throws -> Int64 {
        let note = NewNotification(
            id: id, userID: user, type: "order.shipped", category: "orders", title: "elsewhere", body: "b",
            createdAt: Date())
        guard
            case .created(let events, _) = try await server.app.store.publish(
                [note], catalog: .standard, idempotency: nil)
        else {
            Issue.record("the publish was not created")
            return 0
        }
        return try #require(events.first?.seq)
    }

    @Test("an events change written elsewhere reaches the stream with fresh counts")
    func eventsChangeDelivers() async throws {
        try await withServer { server in
            let stream = try await server.client.openStream(
                "/v1/me/stream", headers: [("Authorization", "Bearer \(try server.token("alice"))")])
            defer { stream.close() }
            _ = try await StreamTests.next("counts", from: stream)

            let seq = try await writeElsewhere(server, to: "alice", id: "elsewhere-1")
            server.app.services.hub.receive(.events(userIDs: ["alice"], throughSeq: seq))
            let created = try await StreamTests.next("notification.created", from: stream)
            #expect(created.id == String(seq) && created.data.contains("elsewhere-1"))
            #expect(try await StreamTests.next("counts", from: stream).data == #"{"unread":1,"unseen":1}"#)
        }
    }

    @Test("a resync catches every open stream up on what it never heard of")
    func resyncCatchesUp() async throws {
        try await withServer { server in
            let stream = try await server.client.openStream(
                "/v1/me/stream", headers: [("Authorization", "Bearer \(try server.token("bob"))")])
            defer { stream.close() }
            _ = try await StreamTests.next("counts", from: stream)

            _ = try await writeElsewhere(server, to: "bob", id: "missed-1")
            _ = try await writeElsewhere(server, to: "bob", id: "missed-2")
            server.app.services.hub.receive(.resync)
            #expect(try await StreamTests.next("notification.created", from: stream).data.contains("missed-1"))
            #expect(try await StreamTests.next("notification.created", from: stream).data.contains("missed-2"))
        }
    }

    @Test("an event heard again, late and out of order, is written once")
    func repeatedChangeWritesOnce() async throws {
        try await withServer { server in
            let stream = try await server.client.openStream(
                "/v1/me/stream", headers: [("Authorization", "Bearer \(try server.token("carol"))")])
            defer { stream.close() }
            _ = try await StreamTests.next("counts", from: stream)
            let key = try await server.apiKey()

            let first = try await server.publish(to: ["carol"], title: "first", key: key)[0]
            let heard = try await StreamTests.next("notification.created", from: stream)
            #expect(heard.data.contains(first))
            let seq = try #require(heard.id.flatMap { Int64($0) })
            // The same event again (its NOTIFY), an older change, and a resync.
            server.app.services.hub.receive(.events(userIDs: ["carol"], throughSeq: seq))
            server.app.services.hub.receive(.events(userIDs: ["carol"], throughSeq: seq - 1))
            server.app.services.hub.receive(.resync)
            let second = try await server.publish(to: ["carol"], title: "second", key: key)[0]
            // The next created event is the second: the first was not written again.
            #expect(try await StreamTests.next("notification.created", from: stream).data.contains(second))
        }
    }
}

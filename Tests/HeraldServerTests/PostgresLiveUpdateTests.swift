import Foundation
import HeraldHTTPTestSupport
import Testing

@testable import HeraldStore

/// Two `herald serve` processes on one PostgreSQL database: what is written through one
/// reaches the live streams open on the other (LISTEN/NOTIFY, then a read of the event log).
@Suite(
    "Live updates across two herald processes on PostgreSQL",
    .enabled(if: livePostgresURL != nil, "HERALD_TEST_POSTGRES_URL is not set (make test sets it)"))
struct PostgresLiveUpdateTests {
    @Test("notifications published through A reach streams on B and on A, each once, in order; the latency is printed")
    func publishReachesOtherProcess() async throws {
        try await withTwoServers { pair in
            let onB = try await pair.openStream(on: pair.b, user: "alice")
            let onA = try await pair.openStream(on: pair.a, user: "alice")
            defer {
                onB.close()
                onA.close()
            }
            var published: [String] = []
            var latencies: [Duration] = []
            for index in 0..<20 {
                let start = ContinuousClock.now
                let publishing = Task { try await pair.publish(through: pair.a, to: "alice", title: "n\(index)") }
                let arrived = try await next("notification.created", from: onB)
                latencies.append(ContinuousClock.now - start)
                let id = try await publishing.value
                #expect(arrived.data.contains(id))
                published.append(id)
            }
            // The next created event on either stream is the marker: nothing came twice.
            let marker = try await pair.publish(through: pair.a, to: "alice", title: "marker")
            let onBAfter = try await next("notification.created", from: onB)
            #expect(onBAfter.data.contains(marker))
            var onAIDs: [String] = []
            for _ in 0...published.count {
                let event = try await next("notification.created", from: onA)
                onAIDs.append(try notificationID(event))
            }
            #expect(onAIDs == published + [marker])

            let sorted = latencies.sorted()
            let median = sorted[sorted.count / 2]
            let worst = sorted[sorted.count - 1]
            print(
                "cross-process live update (publish through A, event on B's stream), 20 publishes: "
                    + "median \(milliseconds(median)) ms, max \(milliseconds(worst)) ms (budget 200 ms: "
                    + (worst <= .milliseconds(200) ? "within" : "OVER") + ")")
        }
    }

    @Test("a console session signed in on A works on B; signing out on B ends it on A")
    func consoleSessionAcrossServers() async throws {
        try await withTwoServers { pair in
            let signIn = try await LoopbackHTTPClient(port: pair.a.port).request(
                "POST", "/console/session", headers: [("Content-Type", "application/json")],
                body: Array(#"{"apiKey":"\#(pair.key)"}"#.utf8))
            try #require(signIn.status == 201, "\(signIn.text)")
            let pairText = try #require(signIn.header("Set-Cookie")?.split(separator: ";").first)
            let cookie = ("Cookie", String(pairText))
            let csrf = try #require(signIn.object["csrfToken"] as? String)
            let onB = try await LoopbackHTTPClient(port: pair.b.port).request(
                "GET", "/v1/broadcasts", headers: [cookie])
            #expect(onB.status == 200, "\(onB.text)")
            let out = try await LoopbackHTTPClient(port: pair.b.port).request(
                "DELETE", "/console/session", headers: [cookie, ("X-CSRF-Token", csrf)])
            #expect(out.status == 204, "\(out.text)")
            let onA = try await LoopbackHTTPClient(port: pair.a.port).request(
                "GET", "/v1/broadcasts", headers: [cookie])
            #expect(onA.status == 401, "\(onA.text)")
        }
    }

    @Test("a read, a delete and mark-all-seen through A update the notification and the counts on B")
    func changesThroughAUpdateB() async throws {
        try await withTwoServers { pair in
            let stream = try await pair.openStream(on: pair.b, user: "bob")
            defer { stream.close() }
            let first = try await pair.publish(through: pair.a, to: "bob", title: "one")
            _ = try await pair.publish(through: pair.a, to: "bob", title: "two")
            try await waitForCounts(#"{"unread":2,"unseen":2}"#, on: stream)

            let bob = try pair.token("bob")
            #expect(
                try await pair.send("POST", "/v1/me/notifications/\(first)/read", through: pair.a, token: bob) == 200)
            let read = try await next("notification.updated", from: stream)
            #expect(read.data.contains(first) && read.data.contains(#""deleted":false"#))
            try await waitForCounts(#"{"unread":1,"unseen":1}"#, on: stream)

            #expect(try await pair.send("DELETE", "/v1/me/notifications/\(first)", through: pair.a, token: bob) == 204)
            let deleted = try await next("notification.updated", from: stream)
            #expect(deleted.data.contains(first) && deleted.data.contains(#""deleted":true"#))

            #expect(try await pair.send("POST", "/v1/me/notifications/seen", through: pair.a, token: bob) == 200)
            try await waitForCounts(#"{"unread":1,"unseen":0}"#, on: stream)
        }
    }

    @Test("a stream on B that reconnects with Last-Event-ID gets what was published through A meanwhile")
    func reconnectResumes() async throws {
        try await withTwoServers { pair in
            let first = try await pair.openStream(on: pair.b, user: "carol")
            let before = try await pair.publish(through: pair.a, to: "carol", title: "before")
            let seen = try await next("notification.created", from: first)
            #expect(seen.data.contains(before))
            first.close()
            let lastID = try #require(seen.id)

            let missed = [
                try await pair.publish(through: pair.a, to: "carol", title: "missed 1"),
                try await pair.publish(through: pair.a, to: "carol", title: "missed 2"),
            ]
            let resumed = try await pair.openStream(on: pair.b, user: "carol", lastEventID: lastID)
            defer { resumed.close() }
            #expect(try notificationID(try await next("notification.created", from: resumed)) == missed[0])
            #expect(try notificationID(try await next("notification.created", from: resumed)) == missed[1])
            let live = try await pair.publish(through: pair.a, to: "carol", title: "live")
            #expect(try notificationID(try await next("notification.created", from: resumed)) == live)
        }
    }

    @Test("after the listeners' connections are terminated, the next publish through A still reaches B")
    func listenerLossIsCaughtUp() async throws {
        try await withTwoServers { pair in
            let stream = try await pair.openStream(on: pair.b, user: "dave")
            defer { stream.close() }
            let warmUp = try await pair.publish(through: pair.a, to: "dave", title: "warm-up")
            #expect(try notificationID(try await next("notification.created", from: stream)) == warmUp)

            #expect(try pair.terminateListeners() == 2)
            let after = try await pair.publish(through: pair.a, to: "dave", title: "after the loss")
            #expect(try notificationID(try await next("notification.created", from: stream)) == after)
            // And the reconnected listener keeps hearing: the next one arrives too, once.
            let later = try await pair.publish(through: pair.a, to: "dave", title: "later")
            #expect(try notificationID(try await next("notification.created", from: stream)) == later)
        }
    }
}

private let livePostgresURL = ProcessInfo.processInfo.environment["HERALD_TEST_POSTGRES_URL"].flatMap {
    $0.isEmpty ? nil : $0
}

/// Two servers on one fresh schema, a publisher key, and the calls the tests make.
private struct ServerPair: Sendable {
    static let secret = "postgres-live-test-secret-0123456789"
    let a: HeraldProcess
    let b: HeraldProcess
    let key: String
    /// The database URL, with the test's own schema as its search path.
    let url: String

    func token(_ user: String) throws -> String {
        try TestTokens.sign(sub: user, exp: Date().addingTimeInterval(600), secret: Self.secret)
    }

    func openStream(on server: HeraldProcess, user: String, lastEventID: String? = nil) async throws
        -> SSEConnection
    {
        var headers = [("Authorization", "Bearer \(try token(user))")]
        if let lastEventID { headers.append(("Last-Event-ID", lastEventID)) }
        let stream = try await LoopbackHTTPClient(port: server.port).openStream("/v1/me/stream", headers: headers)
        #expect(stream.status == 200)
        // A new stream's first counts frame follows its start: from there on it is live. (A
        // resumed one sends the replay first, which the test reads.)
        if lastEventID == nil { _ = try await next("counts", from: stream) }
        return stream
    }

    /// Publishes one notification through `server`; answers its id.
    func publish(through server: HeraldProcess, to user: String, title: String) async throws -> String {
        let body = #"{"recipients":["\#(user)"],"type":"order.shipped","title":"\#(title)","body":"b"}"#
        let response = try await LoopbackHTTPClient(port: server.port).request(
            "POST", "/v1/notifications",
            headers: [("Authorization", "Bearer \(key)"), ("Content-Type", "application/json")],
            body: Array(body.utf8))
        try #require(response.status == 202, "\(response.text)")
        struct Published: Decodable {
            struct Item: Decodable { var id: String }
            var notifications: [Item]
        }
        return try #require(try response.decode(Published.self).notifications.first?.id)
    }

    /// Sends an app call through `server`; answers the status.
    func send(_ method: String, _ path: String, through server: HeraldProcess, token: String) async throws -> Int {
        try await LoopbackHTTPClient(port: server.port).request(
            method, path, headers: [("Authorization", "Bearer \(token)")]
        ).status
    }

    /// Ends the LISTEN sessions of this schema (both servers'); answers how many it ended.
    func terminateListeners() throws -> Int {
        try PostgresConnection(url: url).queryOne(
            """
            SELECT count(pg_terminate_backend(pid)) AS terminated FROM pg_stat_activity
            WHERE application_name = \(PostgresListener.applicationName) || ' ' || current_schema()
            """
        ) { row throws(StoreError) in try row.int("terminated") } ?? 0
    }
}

/// Starts A and B on a new schema, runs `body`, then stops both and drops the schema.
private func withTwoServers(_ body: (ServerPair) async throws -> Void) async throws {
    let base = try #require(livePostgresURL)
    // Made here, never from input: a fixed prefix and hex digits.
    let schema = "herald_live_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    let admin = try PostgresConnection(url: base)
    try admin.executeUncached("CREATE SCHEMA \(schema)")
    defer { try? admin.executeUncached("DROP SCHEMA \(schema) CASCADE") }
    let url = "\(base)?options=-c%20search_path%3D\(schema)"
    let key = try #require(
        try await HeraldExecutable.run(["keys", "create", "--name", "live", "--database", url])
            .split(separator: "\n").last.map(String.init))
    let a = try await HeraldProcess.start(database: url, secret: ServerPair.secret)
    let b: HeraldProcess
    do {
        b = try await HeraldProcess.start(database: url, secret: ServerPair.secret)
    } catch {
        await a.stop()
        throw error
    }
    do {
        try await body(ServerPair(a: a, b: b, key: key, url: url))
    } catch {
        await a.stop()
        await b.stop()
        throw error
    }
    #expect(await a.stop() == .exited(0))
    #expect(await b.stop() == .exited(0))
}

/// Reads until an event of `kind` arrives, skipping heartbeats and other kinds.
private func next(_ kind: String, from stream: SSEConnection) async throws -> SSEEvent {
    while true {
        let event = try #require(try await stream.next(timeout: .seconds(10)), "stream ended before \(kind)")
        if !event.isComment && event.event == kind { return event }
    }
}

/// Reads counts frames until one says `counts` (each change sends fresh counts; several
/// changes may be told in one frame).
private func waitForCounts(_ counts: String, on stream: SSEConnection) async throws {
    while try await next("counts", from: stream).data != counts {}
}

private func notificationID(_ event: SSEEvent) throws -> String {
    struct Created: Decodable { var id: String }
    return try JSONDecoder().decode(Created.self, from: Data(event.data.utf8)).id
}

private func milliseconds(_ duration: Duration) -> String {
    let (seconds, attoseconds) = duration.components
    return String(format: "%.1f", Double(seconds) * 1_000 + Double(attoseconds) / 1e15)
}

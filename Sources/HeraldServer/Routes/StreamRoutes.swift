import Foundation
import HeraldHTTP
import HeraldModel
import HeraldStore

/// `GET /v1/me/stream`: live updates as Server-Sent Events, resumable with `Last-Event-ID`.
struct StreamRoutes {
    let services: Services

    /// Most stored events one reconnect replays; a client further behind refetches.
    static let maxReplay = 1_000

    func register(in router: inout Router) {
        router.add(.GET, "/v1/me/stream", open)
    }

    @Sendable func open(_ request: Request, _ context: RequestContext) async throws -> Response {
        let userID = try services.auth.user(request)
        let resumeAfter = try Self.lastEventID(request)
        let stream = ResponseStream()
        let subscriber = LiveSubscriber(userID: userID, stream: stream, replaying: true)
        services.hub.subscribe(subscriber)
        do {
            var missed: [StreamEventRecord] = []
            if let resumeAfter {
                missed = try await services.store.streamEvents(
                    userID: userID, afterSeq: resumeAfter, limit: Self.maxReplay)
            }
            let counts = try await services.store.counts(userID: userID)
            _ = stream.write(Array("retry: 3000\n\n".utf8))
            subscriber.finishReplay(missed, then: ServerSentEvent.counts(counts).bytes)
        } catch {
            services.hub.unsubscribe(subscriber)
            stream.finish()
            throw error
        }
        var headers = HTTPHeaders()
        headers["Content-Type"] = "text/event-stream; charset=utf-8"
        headers["Cache-Control"] = "no-cache"
        headers["X-Accel-Buffering"] = "no"
        return Response(status: 200, headers: headers, body: .stream(stream))
    }

    private static func lastEventID(_ request: Request) throws -> Int64? {
        guard let raw = request.headers["Last-Event-ID"] ?? request.query["lastEventId"], !raw.isEmpty else {
            return nil
        }
        guard let seq = Int64(raw), seq >= 0 else {
            throw HTTPError(
                400, code: "invalid_last_event_id", message: "Last-Event-ID must be an event id this server sent.")
        }
        return seq
    }
}

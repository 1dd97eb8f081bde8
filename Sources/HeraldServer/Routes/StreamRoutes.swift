import FoundationEssentials
import HeraldHTTP
import HeraldModel
import HeraldStore

/// `GET /v1/me/stream`: live updates as Server-Sent Events, resumable with `Last-Event-ID`.
///
/// Every stream has a resume point from its first frame on: a new one starts with a data-less
/// `id: <the user's newest logged sequence>` frame, so a client that drops before any event
/// arrived still sends `Last-Event-ID` and misses nothing; a resumed one keeps the client's id
/// (the replayed events move it on).
struct StreamRoutes {
    let services: Services

    /// Most stored events one reconnect replays. A client further behind gets a `reset`
    /// event instead: it refetches the inbox (the replay would be larger than a refetch).
    static let maxReplay = 500

    func register(in router: inout Router) {
        router.group(UserAuthentication(auth: services.auth)) { group in
            group.add(.GET, "/v1/me/stream", open)
        }
    }

    @Sendable func open(_ request: Request, _ context: RequestContext) async throws -> Response {
        let user = try context.user
        let (userID, expires) = (user.id, user.expires)
        let resumeAfter = try Self.lastEventID(request)
        let stream = ResponseStream()
        let subscriber = LiveSubscriber(userID: userID, stream: stream, expires: expires)
        services.hub.subscribe(subscriber)
        var missed: [StreamEventRecord] = []
        var preamble = ServerSentEvent.comment(" herald live updates")
        // The id a new stream starts at; read after subscribing, so whatever is logged later
        // reaches this stream live.
        var startID: String?
        // Where the stream goes live: the client's id, or the newest logged event.
        var cursor = resumeAfter ?? 0
        do {
            if let resumeAfter {
                missed = try await services.store.streamEvents(
                    userID: userID, afterSeq: resumeAfter, limit: Self.maxReplay + 1)
                if missed.count > Self.maxReplay {
                    // The reset's id is the newest logged event, so a client that refetched
                    // resumes from there rather than from somewhere inside what it skipped.
                    let latest = try await services.store.latestStreamSeq(userID: userID)
                    missed = []
                    cursor = latest
                    preamble +=
                        ServerSentEvent(id: String(latest), event: "reset", data: #"{"reason":"too_far_behind"}"#)
                        .bytes
                }
            } else {
                cursor = try await services.store.latestStreamSeq(userID: userID)
                startID = String(cursor)
            }
        } catch {
            services.hub.unsubscribe(subscriber)
            stream.finish()
            throw error
        }
        preamble += ServerSentEvent.fields(id: startID, retry: 3000)
        subscriber.finishReplay(preamble: preamble, missed, cursor: cursor)
        // Whatever was logged while the stream replayed.
        services.hub.catchUp(userID)
        services.hub.countsChanged(for: userID)
        var headers = HTTPHeaders()
        headers["Cache-Control"] = "no-cache"
        headers["X-Accel-Buffering"] = "no"
        return Response.eventStream(stream, headers: headers)
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

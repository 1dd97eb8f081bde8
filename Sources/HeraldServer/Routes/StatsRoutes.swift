import FoundationEssentials
import HeraldHTTP
import HeraldStore

/// `GET /v1/stats` (the console's Overview): deliveries per provider and status over the last
/// hour (5-minute buckets) and day (hourly), devices per provider, the users a broadcast to
/// everyone reaches, and this server's open live streams.
struct StatsRoutes {
    let services: Services

    func register(in router: inout Router) {
        router.group(PublisherAuthentication(auth: services.auth)) { group in
            group.add(.GET, "/v1/stats", stats)
        }
    }

    @Sendable func stats(_ request: Request, _ context: RequestContext) async throws -> Response {
        let now = services.now()
        let hour = try await window(since: now.addingTimeInterval(-3600), bucketSeconds: 300)
        let day = try await window(since: now.addingTimeInterval(-86_400), bucketSeconds: 3600)
        let devices = try await services.store.deviceTallies().map {
            DeviceTallyItem(provider: $0.provider.rawValue, active: $0.active, inactive: $0.inactive)
        }
        return try Response.json(
            Stats(
                generatedAt: now, users: try await services.store.knownUserCount(), devices: devices,
                liveStreams: services.hub.streamCount, deliveries: StatsWindows(lastHour: hour, lastDay: day)))
    }

    private func window(since: Date, bucketSeconds: Int) async throws -> StatsWindow {
        let buckets = try await services.store.deliveryBuckets(since: since, bucketSeconds: bucketSeconds)
        return StatsWindow(
            since: since, bucketSeconds: bucketSeconds,
            buckets: buckets.map {
                BucketItem(
                    start: $0.start, provider: $0.provider?.rawValue, status: $0.status.rawValue, count: $0.count)
            })
    }
}

struct Stats: Encodable {
    var generatedAt: Date
    /// Every user id Herald knows: who a broadcast to everyone reaches.
    var users: Int
    var devices: [DeviceTallyItem]
    /// Open `GET /v1/me/stream` connections on the server that answered.
    var liveStreams: Int
    var deliveries: StatsWindows
}

struct DeviceTallyItem: Encodable {
    var provider: String
    var active: Int
    var inactive: Int
}

struct StatsWindows: Encodable {
    var lastHour: StatsWindow
    var lastDay: StatsWindow
}

/// Deliveries created since `since`, counted per bucket (`start` to `start + bucketSeconds`),
/// provider (`null` for the `no_device` rows) and status; empty buckets are left out.
struct StatsWindow: Encodable {
    var since: Date
    var bucketSeconds: Int
    var buckets: [BucketItem]
}

struct BucketItem: Encodable {
    var start: Date
    var provider: String?
    var status: String
    var count: Int

    enum CodingKeys: String, CodingKey { case start, provider, status, count }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(start, forKey: .start)
        try container.encode(provider, forKey: .provider)
        try container.encode(status, forKey: .status)
        try container.encode(count, forKey: .count)
    }
}

import FoundationEssentials
import HeraldHTTP
import HeraldStore

/// `GET /v1/notifications/{id}/deliveries`: where the push of one notification stands on
/// each of its recipient's devices.
struct DeliveryRoutes {
    let services: Services

    func register(in router: inout Router) {
        router.group(PublisherAuthentication(auth: services.auth)) { group in
            group.add(.GET, "/v1/notifications/{id}/deliveries", list)
        }
    }

    @Sendable func list(_ request: Request, _ context: RequestContext) async throws -> Response {
        let id = context.parameter("id")
        guard try await services.store.publishedNotification(id: id) != nil else {
            throw HTTPError.notificationNotFound
        }
        let deliveries = try await services.store.deliveries(notificationID: id)
        return try Response.json(DeliveryList(items: deliveries.map(DeliveryItem.init)))
    }
}

/// The deliveries answer: one item per device (or the one `no_device` item).
struct DeliveryList: Encodable {
    var items: [DeliveryItem]
}

/// One delivery as its publisher sees it. The device token is masked to its last characters:
/// enough to tell a user's devices apart, never enough to push to one.
struct DeliveryItem: Encodable {
    var id: String
    var deviceToken: String?
    var provider: String?
    var platform: String?
    var status: String
    var reason: String?
    var attempts: Int
    var nextAttemptAt: Date?
    /// The provider's id for the accepted push (the APNs `apns-id` answer, the FCM message name,
    /// the Expo ticket), when one was given.
    var providerMessageId: String?
    /// The HTTP status of the provider's answer to the last attempt; `null` before one, or when
    /// no answer came (a transport failure).
    var providerStatus: Int?
    /// `false` once the device's token was pruned (or replaced); `null` when the device is gone.
    var deviceActive: Bool?
    /// When the recipient first opened the notification from a push; `null` until then.
    var openedAt: Date?
    var notificationId: String
    var createdAt: Date
    var updatedAt: Date

    init(_ record: DeliveryRecord) {
        providerMessageId = record.providerMessageID ?? record.providerTicketID
        deviceActive = record.deviceActive
        openedAt = record.openedAt
        providerStatus = record.providerStatus
        notificationId = record.notificationID
        createdAt = record.createdAt
        id = record.id
        deviceToken = record.deviceToken.map(DeviceTokenMask.masked)
        provider = record.provider?.rawValue
        platform = record.platform?.rawValue
        status = record.status.rawValue
        reason = record.reason
        attempts = record.attempts
        nextAttemptAt = record.nextAttemptAt
        updatedAt = record.updatedAt
    }

    // Unset fields are spelled out as `null`.
    enum CodingKeys: String, CodingKey {
        case id, deviceToken, provider, platform, status, reason, attempts, nextAttemptAt, providerMessageId
        case providerStatus, deviceActive, openedAt, notificationId, createdAt, updatedAt
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(deviceToken, forKey: .deviceToken)
        try container.encode(provider, forKey: .provider)
        try container.encode(platform, forKey: .platform)
        try container.encode(status, forKey: .status)
        try container.encode(reason, forKey: .reason)
        try container.encode(attempts, forKey: .attempts)
        try container.encode(nextAttemptAt, forKey: .nextAttemptAt)
        try container.encode(providerMessageId, forKey: .providerMessageId)
        try container.encode(providerStatus, forKey: .providerStatus)
        try container.encode(deviceActive, forKey: .deviceActive)
        try container.encode(openedAt, forKey: .openedAt)
        try container.encode(notificationId, forKey: .notificationId)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(updatedAt, forKey: .updatedAt)
    }
}

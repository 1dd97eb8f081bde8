import FoundationEssentials

extension SQLStore {
    // MARK: Webhooks (see WebhookStatements)

    package func createWebhook(_ webhook: WebhookRecord, maxCount: Int?) async throws -> WebhookCreation {
        try await write { db in try WebhookStatements.create(webhook, maxCount: maxCount, db) }
    }

    package func webhooks() async throws -> [WebhookRecord] {
        try await read { db in try WebhookStatements.all(db) }
    }

    package func webhook(id: String) async throws -> WebhookRecord? {
        try await read { db in try WebhookStatements.one(id: id, db) }
    }

    package func deleteWebhook(id: String) async throws -> Bool {
        try await write { db in try WebhookStatements.delete(id: id, db) }
    }

    package func webhookDeliveries(webhookID: String, beforeSeq: Int64?, limit: Int) async throws
        -> WebhookDeliveryPage?
    {
        let limit = min(max(1, limit), 1_000)
        return try await snapshot { db in
            try WebhookStatements.page(webhookID: webhookID, beforeSeq: beforeSeq, limit: limit, db)
        }
    }

    package func claimDueWebhookDeliveries(limit: Int, now: Date, lease: TimeInterval) async throws
        -> [ClaimedWebhookDelivery]
    {
        let claim = Claim(now: now, lease: lease)
        return try await write { db in
            try WebhookStatements.claimDue(
                limit: limit, now: now, claimToken: claim.token, leaseExpiry: claim.leaseExpiry, db)
        }
    }

    package func completeWebhookDelivery(_ completion: WebhookCompletion, now: Date) async throws -> Bool {
        try await write { db in try WebhookStatements.complete(completion, now: now, db) }
    }

    package func emitWebhookEvent(_ type: WebhookEventType, data: String, at: Date) async throws -> String? {
        try await write { db in try WebhookStatements.emit(type, data: data, at: at, db) }
    }

    package func pruneWebhookDeliveries(finishedBefore: Date) async throws -> Int {
        try await pruneInBatches(WebhookStatements.pruneFinishedBatch(before: finishedBefore))
            + pruneInBatches(WebhookStatements.pruneOrphansBatch)
    }
}

import Foundation
import HeraldPush
import HeraldStore
import Testing

@testable import HeraldServer

@Suite("Expo receipt poller: what a receipt answer records")
struct ExpoReceiptPollerTests {
    static let sentAt = Date(timeIntervalSince1970: 1_800_000_000)
    static let receipt = ClaimedReceipt(deliveryID: "d1", ticketID: "t1", claimToken: "c1", sentAt: sentAt)

    static func result(
        _ answer: ExpoClient.ReceiptsAnswer, after seconds: TimeInterval, receipt: ClaimedReceipt = Self.receipt
    ) -> ReceiptOutcome.Result {
        var settings = ExpoSettings()
        settings.receiptDelay = 900
        var random = SystemRandomNumberGenerator()
        return ExpoReceiptPoller.result(
            for: receipt, in: answer, now: sentAt.addingTimeInterval(seconds), settings: settings,
            policy: RetryPolicy(base: 4, cap: 4, maxAttempts: 3), using: &random)
    }

    @Test("ok is delivered; DeviceNotRegistered prunes; any other error fails")
    func verdicts() {
        #expect(Self.result(.receipts(["t1": .sent(providerMessageID: "t1")]), after: 900) == .delivered)
        #expect(
            Self.result(.receipts(["t1": .pruned(reason: "DeviceNotRegistered")]), after: 900)
                == .pruned(reason: "DeviceNotRegistered"))
        #expect(
            Self.result(.receipts(["t1": .failed(reason: "MessageTooBig")]), after: 900)
                == .failed(reason: "MessageTooBig"))
    }

    @Test("no receipt yet, or a failed request: asked again after at most five minutes, let go after a day")
    func notReady() {
        let asked = Self.sentAt.addingTimeInterval(900)
        #expect(Self.result(.receipts([:]), after: 900) == .notReady(askAgainAt: asked.addingTimeInterval(300)))
        #expect(
            Self.result(.unavailable(reason: "HTTP 503", retryAfter: nil), after: 900)
                == .notReady(askAgainAt: asked.addingTimeInterval(300)))
        #expect(Self.result(.receipts([:]), after: 24 * 3600) == .delivered, "Expo keeps receipts a day at least")
    }

    @Test("MessageRateExceeded in a receipt: Expo dropped the push, so it is sent again with backoff until the limit")
    func rateExceededResends() {
        let rateExceeded = ExpoClient.ReceiptsAnswer.receipts([
            "t1": ExpoErrorTable.receiptVerdict(error: "MessageRateExceeded", message: "too fast")
        ])
        guard case .resend(let at, let reason) = Self.result(rateExceeded, after: 900) else {
            Issue.record("a MessageRateExceeded receipt must send the push again")
            return
        }
        let checked = Self.sentAt.addingTimeInterval(900)
        #expect(reason == "MessageRateExceeded" && at >= checked && at <= checked.addingTimeInterval(4))
        var last = Self.receipt
        last.attempts = 3
        #expect(
            Self.result(rateExceeded, after: 900, receipt: last) == .failed(reason: "MessageRateExceeded"),
            "the attempt limit holds across receipts")
    }
}

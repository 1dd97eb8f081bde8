import Foundation
import Testing

@testable import HeraldPush

/// A seeded generator (SplitMix64), so that jitter is random yet repeatable.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite("Retry policy")
struct RetryPolicyTests {
    let policy = RetryPolicy(base: 1, cap: 1_800, maxAttempts: 8)
    let now = Date(timeIntervalSince1970: 1_750_000_000)
    var random = SeededRandom(state: 7)

    @Test("the ceiling doubles from the base and stops at the cap")
    func ceiling() {
        #expect((1...8).map(policy.ceiling(attempt:)) == [1, 2, 4, 8, 16, 32, 64, 128])
        #expect(policy.ceiling(attempt: 11) == 1_024)
        #expect(policy.ceiling(attempt: 12) == 1_800)
        #expect(policy.ceiling(attempt: 1_000) == 1_800)
        #expect(policy.ceiling(attempt: 0) == 1)
    }

    @Test("full jitter: every delay lies in 0 ... ceiling and they spread over it")
    mutating func jitter() {
        for attempt in [1, 4, 20] {
            let ceiling = policy.ceiling(attempt: attempt)
            let delays = (0..<1_000).map { _ in policy.backoff(attempt: attempt, using: &random) }
            #expect(delays.allSatisfy { (0...ceiling).contains($0) })
            #expect(delays.contains { $0 < ceiling / 4 } && delays.contains { $0 > ceiling * 3 / 4 })
        }
    }

    @Test("a retry is scheduled by backoff from now when there is no Retry-After")
    mutating func backoff() {
        let decision = policy.decide(.retry(reason: "Shutdown", retryAfter: nil), attempt: 3, now: now, using: &random)
        guard case .retry(let at, let reason) = decision else {
            Issue.record("expected a retry, got \(decision)")
            return
        }
        #expect(reason == "Shutdown")
        #expect((now...now.addingTimeInterval(4)).contains(at))
    }

    @Test(
        "Retry-After takes precedence over backoff, as seconds or an HTTP date, capped",
        arguments: [
            ("120", 120.0), (" 7 ", 7), ("0", 0), ("999999", 1_800), ("99999999999999999999999", 1_800),
            ("Sun, 15 Jun 2025 15:15:00 GMT", 500), ("Sun, 15 Jun 2025 14:00:00 GMT", 0),
        ])
    mutating func retryAfter(header: String, delay: TimeInterval) {
        let decision = policy.decide(
            .retry(reason: "TooManyRequests", retryAfter: header), attempt: 1, now: now, using: &random)
        #expect(decision == .retry(at: now.addingTimeInterval(delay), reason: "TooManyRequests"))
    }

    @Test("a Retry-After that is neither falls back to backoff", arguments: ["soon", "-5", "1.5", ""])
    mutating func badRetryAfter(header: String) {
        let decision = policy.decide(
            .retry(reason: "TooManyRequests", retryAfter: header), attempt: 1, now: now, using: &random)
        guard case .retry(let at, _) = decision else {
            Issue.record("expected a retry, got \(decision)")
            return
        }
        #expect((now...now.addingTimeInterval(1)).contains(at))
    }

    @Test("the attempt limit: attempt 7 retries, attempt 8 fails with the last reason")
    mutating func limit() {
        let verdict = PushVerdict.retry(reason: "ServiceUnavailable", retryAfter: "5")
        #expect(
            policy.decide(verdict, attempt: 7, now: now, using: &random)
                == .retry(at: now + 5, reason: "ServiceUnavailable"))
        #expect(policy.decide(verdict, attempt: 8, now: now, using: &random) == .failed(reason: "ServiceUnavailable"))
        #expect(policy.decide(verdict, attempt: 9, now: now, using: &random) == .failed(reason: "ServiceUnavailable"))
    }

    @Test("sent, failed and pruned pass through whatever the attempt")
    mutating func final() {
        #expect(
            policy.decide(.sent(providerMessageID: "id"), attempt: 8, now: now, using: &random)
                == .sent(providerMessageID: "id"))
        #expect(
            policy.decide(.failed(reason: "BadTopic"), attempt: 1, now: now, using: &random)
                == .failed(reason: "BadTopic"))
        #expect(
            policy.decide(.pruned(reason: "Unregistered"), attempt: 1, now: now, using: &random)
                == .pruned(reason: "Unregistered"))
    }
}

@Suite("Retry-After HTTP dates")
struct RetryAfterDateTests {
    private static let now = Date(timeIntervalSince1970: 1_796_000_000)  // 2026-11-29

    private static func formatter(_ format: String) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = format
        return formatter
    }

    @Test("each of the three forms reads as the instant it names, as Foundation's formatter reads it")
    func threeForms() throws {
        let imf = Self.formatter("EEE, dd MMM yyyy HH:mm:ss 'GMT'")
        let asctime = Self.formatter("EEE MMM d HH:mm:ss yyyy")
        let examples: [(String, TimeInterval)] = [
            ("Sun, 06 Nov 1994 08:49:37 GMT", 784_111_777), ("Sunday, 06-Nov-94 08:49:37 GMT", 784_111_777),
            ("Sun Nov  6 08:49:37 1994", 784_111_777), ("Thu, 29 Feb 2024 23:59:59 GMT", 1_709_251_199),
            ("Tue, 29 Feb 2000 00:00:00 GMT", 951_782_400), ("Thu, 01 Jan 1970 00:00:00 GMT", 0),
            ("Wed, 31 Dec 1969 23:59:59 GMT", -1), ("Fri Dec 31 23:59:59 9999", 253_402_300_799),
        ]
        for (text, seconds) in examples {
            #expect(RetryAfter.httpDate(text, now: Self.now) == Date(timeIntervalSince1970: seconds), "\(text)")
        }
        var random = SeededRandom(state: 17)
        for _ in 0..<2_000 {
            let date = Date(
                timeIntervalSince1970: TimeInterval(Int64.random(in: -2_208_988_800...7_258_118_400, using: &random)))
            let text = imf.string(from: date)
            #expect(RetryAfter.httpDate(text, now: Self.now) == date, "\(text)")
            var spelled = asctime.string(from: date)
            // asctime pads a one-digit day with a space, which the formatter cannot write.
            if let match = spelled.firstMatch(of: #/^(\w{3} \w{3}) (\d) /#) {
                spelled = "\(match.output.1)  \(match.output.2) " + spelled[match.range.upperBound...]
            }
            #expect(RetryAfter.httpDate(spelled, now: Self.now) == date, "\(spelled)")
        }
        // A two-digit year is the latest such year not more than 50 years after now (2026).
        let gmt = try #require(TimeZone(identifier: "GMT"))
        for (text, year) in [("Wednesday, 01-Jan-76 00:00:00 GMT", 2076), ("Friday, 01-Jan-77 00:00:00 GMT", 1977)] {
            let parsed = try #require(RetryAfter.httpDate(text, now: Self.now), "\(text)")
            #expect(Calendar(identifier: .gregorian).dateComponents(in: gmt, from: parsed).year == year, "\(text)")
        }
    }

    @Test(
        "anything else is not a date",
        arguments: [
            "", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 6 Nov 1994 08:49:37 GMT", "Sun, 06 nov 1994 08:49:37 GMT",
            "Xyz, 06 Nov 1994 08:49:37 GMT", "Sun, 31 Apr 2025 10:00:00 GMT", "Sat, 29 Feb 2025 10:00:00 GMT",
            "Mon, 01 Mar 1900 24:00:00 GMT", "Mon, 01 Mar 2027 10:60:00 GMT", "Mon, 00 Mar 2027 10:00:00 GMT",
            "Mon, 01 Mar 2027 10:00:00 GMT ", "Mon, 01 Mar 2O27 10:00:00 GMT", "Mon, 01 Mar 2027 10:00:+1 GMT",
            "Mon, 01 Mar 2027 10:00:60 GMT", "Mon, 01 Mar 2027  10:00:00 GMT", "Sun, 06 Nov 94 08:49:37 GMT",
            "Sunday, 06-Nov-1994 08:49:37 GMT", "Sun, 06-Nov-94 08:49:37 GMT", "Sunday, 6-Nov-94 08:49:37 GMT",
            "Sun Nov 6 08:49:37 1994", "Sun Nov 06  08:49:37 1994", "Sun Nov  6 08:49:37 94",
            "Sun Nov  6 08:49:37 1994 GMT", "sun, 06 Nov 1994 08:49:37 GMT",
        ])
    func notDates(_ text: String) {
        #expect(RetryAfter.httpDate(text, now: Self.now) == nil)
    }
}

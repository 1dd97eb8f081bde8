import FoundationEssentials
import HeraldModel
import HeraldServerModel

/// `herald bench sanitize`: the HTML sanitizer on the inputs that once cost it quadratic time,
/// one line per input with the best of a few runs, so a release build shows whether each
/// stays linear (compare an input with its double).
struct BenchSanitize {
    /// A named input for the sanitizer.
    struct Input {
        let name: String
        let html: String
    }

    /// Each input at a size and at twice that size.
    static let inputs: [Input] =
        [16_000, 32_000].flatMap { count in
            [
                Input(name: "\(count) nested <b>", html: String(repeating: "<b>", count: count) + "x"),
                Input(
                    name: "\(count) nested <b> closed in order",
                    html: String(repeating: "<b>", count: count) + "x" + String(repeating: "</b>", count: count)),
                Input(
                    name: "\(count) nested <b>, then \(count) stray </i>",
                    html: String(repeating: "<b>", count: count) + String(repeating: "</i>", count: count)),
                Input(
                    name: "\(count) nested unclosed <div><span><p>",
                    html: String(repeating: "<div><span><p>", count: count)),
            ]
        }
        + [99_000, 198_000].map { count in
            Input(
                name: "\(count) leading spaces in an href",
                html: "<a href=\"" + String(repeating: " ", count: count) + "https://x.example/\">x</a>")
        }
        + [100_000, 200_000].map { count in
            Input(name: "\(count) &amp;", html: String(repeating: "&amp;", count: count))
        }
        + [1_000_000, 2_000_000].map { bytes in
            Input(
                name: "\(bytes / 1_000_000) MB attribute value",
                html: "<a href=\"https://x.example/" + String(repeating: "a", count: bytes) + "\">x</a>")
        }

    let out: @Sendable (String) -> Void

    func run(repeats: Int) {
        for input in Self.inputs {
            var best = Duration.seconds(3600)
            var outputBytes = 0
            for _ in 0..<repeats {
                let started = ContinuousClock.now
                let output = HTMLSanitizer.sanitize(input.html)
                best = min(best, ContinuousClock.now - started)
                outputBytes = output.utf8.count
            }
            out(
                "sanitize: \(input.name): \((best.inSeconds * 1e3).decimal(fractionDigits: 2)) ms "
                    + "(\(input.html.utf8.count) bytes in, \(outputBytes) out)")
        }
    }
}

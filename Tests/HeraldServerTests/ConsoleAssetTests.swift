import Foundation
import HeraldHTTPTestSupport
import Testing

@testable import HeraldServer

/// The console's files over real HTTP: built in, from this origin only, under a strict
/// Content-Security-Policy, with no inline script and nothing that parses server text as HTML.
@Suite("Console assets")
struct ConsoleAssetTests {
    static func expectStrictHeaders(_ response: LoopbackResponse, sourceLocation: SourceLocation = #_sourceLocation) {
        let policy = response.header("Content-Security-Policy") ?? ""
        #expect(policy == ConsoleAssetRoutes.contentSecurityPolicy, sourceLocation: sourceLocation)
        for directive in ["default-src 'none'", "script-src 'self'", "frame-ancestors 'none'", "base-uri 'none'"] {
            #expect(policy.contains(directive), "\(directive)", sourceLocation: sourceLocation)
        }
        #expect(!policy.contains("unsafe-inline") && !policy.contains("unsafe-eval"), sourceLocation: sourceLocation)
        #expect(response.header("X-Frame-Options") == "DENY", sourceLocation: sourceLocation)
        #expect(response.header("X-Content-Type-Options") == "nosniff", sourceLocation: sourceLocation)
    }

    static func matches(_ pattern: String, _ text: String) throws -> Bool {
        try NSRegularExpression(pattern: pattern, options: [.caseInsensitive])
            .firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    @Test(
        "/console is the built-in page under the strict policy: no inline script, no handler attributes, no other origin"
    )
    func page() async throws {
        try await withServer { server in
            let page = try await server.get("/console")
            #expect(page.status == 200)
            #expect(page.header("Content-Type") == "text/html; charset=utf-8")
            Self.expectStrictHeaders(page)
            let html = page.text
            #expect(html.contains(#"<script type="module" src="/console/assets/console.js"></script>"#))
            #expect(try !Self.matches(#"<script(?![^>]*\bsrc=)[^>]*>"#, html), "an inline script")
            #expect(try !Self.matches(#"\son[a-z]+\s*="#, html), "an inline event handler")
            #expect(try !Self.matches(#"javascript:"#, html))
            #expect(try !Self.matches(#"<style"#, html), "an inline style block")
            for label in ["Publisher API key", "Sign in", "Sign out"] {
                #expect(html.contains(label), "\(label)")
            }
        }
    }

    @Test("the styles and the script are served with their types; neither loads anything from elsewhere")
    func assets() async throws {
        try await withServer { server in
            let names = ConsoleAssetRoutes.assets.keys.sorted()
            #expect(names.filter { $0.hasSuffix(".js") }.count >= 5, "\(names)")
            var parsers = 0
            for name in names {
                let file = try await server.get("/console/assets/\(name)")
                #expect(file.status == 200, "\(name)")
                let type = name.hasSuffix(".css") ? "text/css" : "text/javascript"
                #expect(file.header("Content-Type") == "\(type); charset=utf-8")
                Self.expectStrictHeaders(file)
                // The SVG namespace is a name, not an address anything is loaded from.
                let text = file.text.replacingOccurrences(of: "http://www.w3.org/2000/svg", with: "")
                #expect(try !Self.matches(#"https?://"#, text), "\(name) names another origin")
                #expect(try !Self.matches(#"@import|url\("#, text), "\(name) loads another file")
                for sink in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"]
                {
                    #expect(!text.contains(sink), "\(name): server text must never be parsed as HTML or code: \(sink)")
                }
                // The one parse of HTML: the sanitized detail preview, into an inert document.
                parsers += text.components(separatedBy: "new DOMParser()").count - 1
                if name != "dom.js" { #expect(!text.contains("DOMParser"), "\(name) parses HTML") }
            }
            #expect(parsers == 1)
            let toolkit = try await server.get("/console/assets/dom.js")
            #expect(toolkit.text.contains(#"headers["X-CSRF-Token"]"#), "state-changing calls carry the CSRF token")
        }
    }

    @Test("an unknown or escaping asset name is 404")
    func unknownAssets() async throws {
        try await withServer { server in
            for path in ["/console/assets/nope.js", "/console/assets/..%2Fopenapi.json", "/console/assets/index.html"] {
                expectError(try await server.get(path), 404, "not_found")
            }
        }
    }
}

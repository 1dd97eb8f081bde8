import HeraldHTTP

/// The console's page, styles and scripts, compiled into the binary and served from this
/// origin under a strict Content-Security-Policy: scripts and styles only from these files (no
/// inline script, no `eval`), calls only to this origin, never framed.
struct ConsoleAssetRoutes {
    /// Every answer of the console's files carries it.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' https: data:; "
        + "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

    /// The files under `/console/assets/`, by name.
    static let assets: [String: (type: String, bytes: [UInt8])] = [
        "console.css": ("text/css; charset=utf-8", PackageResources.console_css),
        "console.js": ("text/javascript; charset=utf-8", PackageResources.console_js),
        "dom.js": ("text/javascript; charset=utf-8", PackageResources.dom_js),
        "compose.js": ("text/javascript; charset=utf-8", PackageResources.compose_js),
        "messages.js": ("text/javascript; charset=utf-8", PackageResources.messages_js),
        "admin.js": ("text/javascript; charset=utf-8", PackageResources.admin_js),
    ]

    func register(in router: inout Router) {
        router.add(.GET, "/console", page)
        router.add(.GET, "/console/assets/{name}", asset)
    }

    @Sendable func page(_ request: Request, _ context: RequestContext) async throws -> Response {
        Self.answer("text/html; charset=utf-8", PackageResources.index_html)
    }

    @Sendable func asset(_ request: Request, _ context: RequestContext) async throws -> Response {
        guard let file = Self.assets[context.parameter("name")] else {
            throw HTTPError(404, code: "not_found", message: "The console has no such file.")
        }
        return Self.answer(file.type, file.bytes)
    }

    private static func answer(_ type: String, _ bytes: [UInt8]) -> Response {
        var headers = HTTPHeaders()
        headers["Content-Type"] = type
        headers["Content-Security-Policy"] = contentSecurityPolicy
        headers["X-Content-Type-Options"] = "nosniff"
        headers["Referrer-Policy"] = "no-referrer"
        headers["X-Frame-Options"] = "DENY"
        // The files change with the binary: ask again each time (a 200 of a few KB).
        headers["Cache-Control"] = "no-cache"
        return Response(status: 200, headers: headers, body: .bytes(bytes))
    }
}

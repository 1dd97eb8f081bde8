/// The bodies the Expo push service answers with: `{"data": ...}` on success, and
/// `{"errors": [{"code", "message"}]}` when the whole request failed.
enum ExpoAnswer {
    /// A push ticket, or a receipt: `{"status": "ok", "id"?}` or
    /// `{"status": "error", "message", "details": {"error"}}`.
    struct Ticket: Decodable {
        struct Details: Decodable {
            var error: String?
        }

        var status: String
        var id: String?
        var message: String?
        var details: Details?
    }

    struct RequestError: Decodable {
        var code: String?
        var message: String?
        /// For ``ExpoClient/mixedProjectsCode``: the request's push tokens by project (other
        /// errors' `details` are not read).
        var tokensByProject: [String: [String]]?

        private enum CodingKeys: String, CodingKey { case code, message, details }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            code = try container.decodeIfPresent(String.self, forKey: .code)
            message = try container.decodeIfPresent(String.self, forKey: .message)
            tokensByProject = try? container.decodeIfPresent([String: [String]].self, forKey: .details)
        }
    }

    /// The answer to a send: one ticket per message, in order.
    struct Send: Decodable {
        var data: [Ticket]?
        var errors: [RequestError]?
    }

    /// The answer to a receipts request: a receipt per ticket id that has one yet.
    struct Receipts: Decodable {
        var data: [String: Ticket]?
        var errors: [RequestError]?
    }

    /// The first error's code (or message), for a reason, at most 64 characters.
    static func reason(_ errors: [RequestError]?, status: Int) -> String {
        guard let first = errors?.first else { return "HTTP \(status)" }
        return String((first.code ?? first.message ?? "HTTP \(status)").prefix(64))
    }
}

/// Turns thrown errors into responses, the same way for the router and the transport.
enum ErrorMapping {
    static func response(for error: any Error, context: RequestContext) -> Response {
        let httpError = HTTPError.from(error)
        if let known = error as? HTTPError {
            if known.status >= 500 {
                context.logger.warning(
                    "request failed", metadata: ["status": String(known.status), "code": known.code])
            } else {
                context.logger.debug(
                    "request rejected", metadata: ["status": String(known.status), "code": known.code])
            }
        } else if error is CancellationError {
            context.logger.debug("request cancelled")
        } else {
            context.logger.error(
                "unhandled error",
                metadata: ["error": String(describing: error), "error_type": String(reflecting: type(of: error))])
        }
        return httpError.response
    }
}

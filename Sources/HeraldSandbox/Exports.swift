// The request, response and header types are part of this module's API (every handler takes
// and answers them), so whoever imports HeraldSandbox has them without a second import. They
// are HeraldHTTP2's, the one vocabulary of the sandbox and the push client.
@_exported import HeraldHTTP2

// The request, response and header types are part of this module's API (the client sends and
// answers them; the provider clients build them), so whoever imports HeraldPush has them
// without a second import. They are HeraldHTTP2's, the one vocabulary of the push client and
// the sandbox.
@_exported import HeraldHTTP2

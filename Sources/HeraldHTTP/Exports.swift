// The logger is part of this module's API (every request context carries one), so whoever
// imports HeraldHTTP has it without a second import.
@_exported import HeraldLog

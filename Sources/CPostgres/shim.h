#ifndef HERALD_CPOSTGRES_SHIM_H
#define HERALD_CPOSTGRES_SHIM_H
#include <libpq-fe.h>

/// The SQLSTATE of a failed result; PG_DIAG_SQLSTATE is a character macro Swift cannot import.
static inline const char *herald_pq_sqlstate(const PGresult *result) {
    return PQresultErrorField(result, PG_DIAG_SQLSTATE);
}

/// The primary message of a failed result, without the DETAIL line (which can quote row values).
static inline const char *herald_pq_primary_message(const PGresult *result) {
    return PQresultErrorField(result, PG_DIAG_MESSAGE_PRIMARY);
}

static void herald_pq_ignore_notice(void *context, const char *message) {
    (void)context;
    (void)message;
}

/// Drops the server's NOTICE messages (e.g. "drop cascades to ..."), which libpq would
/// otherwise print to stderr; errors still arrive as failed results.
static inline void herald_pq_ignore_notices(PGconn *connection) {
    PQsetNoticeProcessor(connection, herald_pq_ignore_notice, NULL);
}
#endif

#ifndef HERALD_CPOSTGRES_SHIM_H
#define HERALD_CPOSTGRES_SHIM_H
// libpq's declarations only: Herald does not link libpq. It loads it (dlopen) the first time a
// PostgreSQL database is opened and calls it through `herald_libpq`, so a server on SQLite maps
// neither libpq nor the Kerberos, LDAP and SASL libraries behind it.
#include <dlfcn.h>
#include <stddef.h>
#if __has_include(<libpq-fe.h>)
#include <libpq-fe.h>
#else
#include <postgresql/libpq-fe.h>
#endif

/// The libpq functions Herald calls, each once in this list.
#define HERALD_LIBPQ_FUNCTIONS(X)                                                              \
    X(PQclear)                                                                                 \
    X(PQcmdTuples)                                                                             \
    X(PQconnectdbParams)                                                                       \
    X(PQconsumeInput)                                                                          \
    X(PQenterPipelineMode)                                                                     \
    X(PQerrorMessage)                                                                          \
    X(PQexec)                                                                                  \
    X(PQexecParams)                                                                            \
    X(PQexecPrepared)                                                                          \
    X(PQexitPipelineMode)                                                                      \
    X(PQfinish)                                                                                \
    X(PQfname)                                                                                 \
    X(PQfreemem)                                                                               \
    X(PQgetResult)                                                                             \
    X(PQgetisnull)                                                                             \
    X(PQgetvalue)                                                                              \
    X(PQnfields)                                                                               \
    X(PQnotifies)                                                                              \
    X(PQntuples)                                                                               \
    X(PQpipelineSync)                                                                          \
    X(PQprepare)                                                                               \
    X(PQresultErrorField)                                                                      \
    X(PQresultErrorMessage)                                                                    \
    X(PQresultStatus)                                                                          \
    X(PQsendQueryParams)                                                                       \
    X(PQsendQueryPrepared)                                                                     \
    X(PQsetNoticeProcessor)                                                                    \
    X(PQsocket)                                                                                \
    X(PQstatus)                                                                                \
    X(PQtransactionStatus)

/// libpq's functions, each typed as libpq-fe.h declares it and named as libpq names it.
typedef struct herald_libpq {
#define HERALD_LIBPQ_MEMBER(name) __typeof__(name) *_Nonnull name;
    HERALD_LIBPQ_FUNCTIONS(HERALD_LIBPQ_MEMBER)
#undef HERALD_LIBPQ_MEMBER
} herald_libpq;

/// Fills `table` from `library` (what dlopen returned): NULL when every function was found,
/// otherwise the name of the first one missing (and `table` must not be used).
static inline const char *_Nullable herald_libpq_resolve(void *_Nonnull library, herald_libpq *_Nonnull table) {
#define HERALD_LIBPQ_RESOLVE(name)                                                             \
    if ((table->name = (__typeof__(name) *)dlsym(library, #name)) == NULL) return #name;
    HERALD_LIBPQ_FUNCTIONS(HERALD_LIBPQ_RESOLVE)
#undef HERALD_LIBPQ_RESOLVE
    return NULL;
}

/// PG_DIAG_SQLSTATE and PG_DIAG_MESSAGE_PRIMARY are character macros, which Swift cannot import.
enum {
    HERALD_PG_DIAG_SQLSTATE = PG_DIAG_SQLSTATE,
    HERALD_PG_DIAG_MESSAGE_PRIMARY = PG_DIAG_MESSAGE_PRIMARY,
};
#endif

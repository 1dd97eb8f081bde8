#ifndef HERALD_CSQLITE_SHIM_H
#define HERALD_CSQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro over a cast Swift cannot import.
static inline sqlite3_destructor_type herald_sqlite_transient(void) { return SQLITE_TRANSIENT; }

/// sqlite3_config is variadic; the store only needs the single-int options.
static inline int herald_sqlite_config_int(int option, int value) { return sqlite3_config(option, value); }
#endif

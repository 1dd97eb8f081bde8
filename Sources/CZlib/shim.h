#ifndef HERALD_CZLIB_SHIM_H
#define HERALD_CZLIB_SHIM_H
#include <zlib.h>

/// `inflateInit2` is a macro over `inflateInit2_` (which takes the library's version and the
/// stream's size). windowBits 15 + 32: a gzip or zlib header, detected.
static inline int herald_inflateInit_gzip_or_zlib(z_stream *stream) {
    return inflateInit2(stream, 15 + 32);
}
#endif

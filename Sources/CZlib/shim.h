// zlib's deflateInit2 is a macro, which Swift cannot call; this wraps it.
#ifndef FORCETERM_CZLIB_SHIM_H
#define FORCETERM_CZLIB_SHIM_H

#include <zlib.h>

/// Starts a gzip stream (window bits 15 + 16 asks zlib for the gzip wrapper) at `level`.
static inline int forceterm_deflate_init_gzip(z_stream *stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}

#endif

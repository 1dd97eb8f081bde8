#ifndef HERALD_CNGHTTP2_SHIM_H
#define HERALD_CNGHTTP2_SHIM_H
// libnghttp2 imports as is: its plain enums become structs with global constants, the frame
// and data-source unions import as Swift structs. The TLS side (ALPN "h2") is in COpenSSL's tls.h.
#include <nghttp2/nghttp2.h>

// The event loops of the server over it: Swift's Glibc module leaves these headers out, and
// declares accept4 only under _GNU_SOURCE (too late to define here).
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
extern int accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);
#endif

#ifndef HERALD_CTHREADS_SHIM_H
#define HERALD_CTHREADS_SHIM_H
// Naming the threads Herald starts (HeraldThreads): Swift's Glibc module declares
// pthread_setname_np only under _GNU_SOURCE, too late to define here.
#include <pthread.h>
extern int pthread_setname_np(pthread_t thread, const char *name);
#endif

#ifndef HERALD_CTHREADS_SHIM_H
#define HERALD_CTHREADS_SHIM_H
// glibc functions Swift's Glibc module declares only under _GNU_SOURCE, which is defined too late
// here: naming the threads Herald starts (HeraldThreads), and the dynamic loader's search path.
#include <pthread.h>
#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>
extern int pthread_setname_np(pthread_t thread, const char *name);

// dlinfo(3) and its RTLD_DI_SERINFO answer, as <dlfcn.h> declares them under _GNU_SOURCE.
extern int dlinfo(void *handle, int request, void *argument);
typedef struct {
    char *name;
    unsigned int flags;
} herald_search_directory;
typedef struct {
    size_t size;
    unsigned int count;
    herald_search_directory directories[];
} herald_search_path;

/// The directories the dynamic loader searches, in order, for a library the main program opens by
/// name (LD_LIBRARY_PATH, the program's RUNPATH, the system's directories; the entries of
/// /etc/ld.so.cache are not listed): a buffer to free(3), or NULL when glibc cannot say.
static inline herald_search_path *herald_library_search_path(void) {
    void *program = dlopen(NULL, RTLD_LAZY);
    if (program == NULL) return NULL;
    herald_search_path sizing;
    herald_search_path *path = NULL;
    if (dlinfo(program, 5 /* RTLD_DI_SERINFOSIZE */, &sizing) == 0 && sizing.size >= sizeof sizing) {
        path = malloc(sizing.size);
        if (path != NULL) {
            *path = sizing;
            if (dlinfo(program, 4 /* RTLD_DI_SERINFO */, path) != 0) {
                free(path);
                path = NULL;
            }
        }
    }
    dlclose(program);
    return path;
}

/// The `index`th directory of `path` (below its count).
static inline const char *herald_search_directory_name(const herald_search_path *path, unsigned int index) {
    return path->directories[index].name;
}
#endif

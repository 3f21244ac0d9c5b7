// The functions of CTreeSystem.h that need headers Swift should not see (malloc.h, auxv.h).
#include "CTreeSystem.h"

#ifdef __GLIBC__
#include <gnu/libc-version.h>
#include <malloc.h>
#endif
#ifdef __linux__
#include <sys/auxv.h>
#endif

int ctree_set_mmap_threshold(int bytes) {
#ifdef __GLIBC__
    return mallopt(M_MMAP_THRESHOLD, bytes) == 1;
#else
    (void)bytes;
    return 0;
#endif
}

int ctree_malloc_trim(void) {
#ifdef __GLIBC__
    return malloc_trim(0);
#else
    return 0;
#endif
}

int ctree_secure_execution(void) {
#if defined(__linux__) && defined(AT_SECURE)
    return getauxval(AT_SECURE) != 0;
#else
    return 0;
#endif
}

const char *ctree_glibc_version(void) {
#ifdef __GLIBC__
    return gnu_get_libc_version();
#else
    return NULL;
#endif
}

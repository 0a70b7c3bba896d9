// Turns memory tricks off without rebuilding, for Deploy/bench/tricks.sh (LD_PRELOAD; compiled by it):
//   -DMALLOC_DEFAULTS      mallopt and malloc_trim do nothing: glibc's own malloc settings (no fixed mmap and trim
//                          thresholds, one arena per thread) and no trim after a pass (Sources/CLISupport/
//                          MemoryTuning.swift, Sources/Appliance/SyncWorker.swift)
//   -DLISTING_CACHE_DEFAULT `PRAGMA listing.cache_size = -256;` is left out of the script that starts a listing:
//                          SQLite's default page cache for the listing's database (Sources/ContactStore/
//                          ContactStore+SyncState.swift)
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#ifdef MALLOC_DEFAULTS
int mallopt(int param, int value) {
    (void)param;
    (void)value;
    return 1;
}
int malloc_trim(size_t pad) {
    (void)pad;
    return 0;
}
#endif

#ifdef LISTING_CACHE_DEFAULT
typedef int (*exec_fn)(void *, const char *, void *, void *, char **);
int sqlite3_exec(void *db, const char *sql, void *callback, void *argument, char **error) {
    static exec_fn real;
    if (!real) real = (exec_fn)dlsym(RTLD_NEXT, "sqlite3_exec");
    static const char pragma[] = "PRAGMA listing.cache_size = -256;";
    const char *found = sql ? strstr(sql, pragma) : NULL;
    if (!found) return real(db, sql, callback, argument, error);
    size_t length = strlen(sql);
    char *copy = malloc(length + 1);
    if (!copy) return real(db, sql, callback, argument, error);
    size_t before = (size_t)(found - sql);
    memcpy(copy, sql, before);
    strcpy(copy + before, found + sizeof pragma - 1);
    int result = real(db, copy, callback, argument, error);
    free(copy);
    return result;
}
#endif

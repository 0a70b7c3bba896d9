#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro over a function-pointer cast that Swift cannot import.
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }

// sqlite3_config is variadic, which Swift cannot call. Both settings keep SQLite's allocations below glibc's mmap
// threshold (MemoryTuning), where each block was an mmap, its page faults and an munmap (SQLite.Database).
// The statement journal's spill threshold is also the size of the chunks it holds in memory.
static inline int csqlite_config_statement_journal_spill(int bytes) {
    return sqlite3_config(SQLITE_CONFIG_STMTJRNL_SPILL, bytes);
}

// Pages a page cache allocates in one block when it opens (SQLite's default is 20, about 88 KiB); 0 allocates them
// one at a time, as they are needed.
static inline int csqlite_config_page_cache_first_pages(int pages) {
    return sqlite3_config(SQLITE_CONFIG_PAGECACHE, (void *)0, 0, pages);
}

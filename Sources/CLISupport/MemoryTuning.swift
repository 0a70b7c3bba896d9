import CMalloc

public enum MemoryTuning {
    /// glibc raises its mmap threshold every time a large block is freed, after which large blocks (read buffers,
    /// photos) come from the heap, fragment it, and the heap grows with the number of cards processed (an import's
    /// peak grew with N; `Deploy/bench/tricks.sh` measures this trick on and off). A fixed threshold hands
    /// blocks of 64 KiB and more back to the kernel when they are freed, and keeps the peak flat at any N.
    ///
    /// The daemon runs threads (the sync worker, the status server), and glibc gives each thread that allocates
    /// its own arena, whose freed memory is rarely handed back: one arena for the whole process keeps the heap in
    /// one place, where the trim threshold applies (mallopt(3), M_ARENA_MAX).
    public static func apply() {
        _ = mallopt(M_MMAP_THRESHOLD, 64 * 1024)
        _ = mallopt(M_TRIM_THRESHOLD, 128 * 1024)
        _ = mallopt(M_ARENA_MAX, 1)
    }
}

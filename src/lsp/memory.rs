//! The server's heap: one for all its threads, and memory given back to
//! the system after a large text is dropped.

/// Gives freed memory back to the system. glibc keeps the pages of a closed
/// huge report in its heaps otherwise (a closed 50 MB document left 130 MB).
pub(crate) fn release_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free pages of the allocator's heaps to the system.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Makes every thread allocate from one heap. glibc gives each thread that
/// allocates at once a heap of its own: a huge report's tree, parsed on the
/// opening pool, was freed in the pool's heaps while its rope and analysis
/// were made in the analysis thread's, and a reload's peak was both (a
/// 50 000-entry report's reload peaked at 161 MiB, not 133, and held 116
/// after it, not 94). Called before any thread starts.
pub(crate) fn one_heap() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets a tunable of the allocator, before other threads exist.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
}

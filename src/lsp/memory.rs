//! Memory given back to the system after a large text is dropped.

/// Gives freed memory back to the system. glibc keeps the pages of a closed
/// huge report in its heaps otherwise (a closed 50 MB document left 130 MB).
pub(crate) fn release_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free pages of the allocator's heaps to the system.
    unsafe {
        libc::malloc_trim(0);
    }
}

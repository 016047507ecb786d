//! The counting allocator of the "per-frame calls allocate nothing" tests. A test binary installs
//! it with `#[global_allocator] static ALLOCATOR: CountingAllocator = CountingAllocator;` and
//! wraps the frames in [`allocations_on_this_thread`] or [`allocations_on_every_thread`].

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// The system allocator, counting allocations and reallocations while a count is running.
#[derive(Debug, Clone, Copy, Default)]
pub struct CountingAllocator;

static EVERY_THREAD: AtomicBool = AtomicBool::new(false);
static COUNT: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static THIS_THREAD: Cell<bool> = const { Cell::new(false) };
}

fn note() {
    if EVERY_THREAD.load(Ordering::Relaxed) || THIS_THREAD.with(Cell::get) {
        COUNT.fetch_add(1, Ordering::Relaxed);
    }
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged, so the
// `GlobalAlloc` contract holds as it does for `System`; counting touches no allocated memory.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note();
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract, which we pass on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator, i.e. from `System`, with this `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note();
        // SAFETY: as for `dealloc`, and the caller upholds `realloc`'s contract on `new_size`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// Allocations made by the calling thread while `f` runs (other threads are not counted).
pub fn allocations_on_this_thread(f: impl FnOnce()) -> usize {
    COUNT.store(0, Ordering::Relaxed);
    THIS_THREAD.with(|c| c.set(true));
    f();
    THIS_THREAD.with(|c| c.set(false));
    COUNT.load(Ordering::Relaxed)
}

/// Allocations made by any thread while `f` runs (worker pools included).
pub fn allocations_on_every_thread(f: impl FnOnce()) -> usize {
    COUNT.store(0, Ordering::Relaxed);
    EVERY_THREAD.store(true, Ordering::Relaxed);
    f();
    EVERY_THREAD.store(false, Ordering::Relaxed);
    COUNT.load(Ordering::Relaxed)
}

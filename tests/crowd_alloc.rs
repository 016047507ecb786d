//! Crowd frames allocate nothing, on any thread: a global counting allocator (counting on every
//! thread, so rayon's workers are included) around many `Crowd::update` calls.
#![allow(clippy::unwrap_used)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use animtune::crowd::Crowd;

struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static COUNT: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            COUNT.fetch_add(1, Ordering::Relaxed);
        }
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            COUNT.fetch_add(1, Ordering::Relaxed);
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

#[test]
fn crowd_frames_allocate_nothing() {
    assert!(animtune::crowd::init_thread_pool(), "the first pool of this test process");
    let model = anim::import::load_slice(animtune::mannequin::DEFAULT_MODEL_GLB, None).unwrap();
    let w64 = anim::workload::w64_model();
    for (name, model) in [("built-in character", &model), ("W64", &w64)] {
        let mut crowd = Crowd::new(model, 150, 11);
        // Warm-up: buffers reach their working sizes.
        for _ in 0..30 {
            crowd.update(model, 1.0 / 60.0);
        }
        COUNT.store(0, Ordering::Relaxed);
        COUNTING.store(true, Ordering::Relaxed);
        // 7 s: every instance cross-fades at least once.
        for _ in 0..420 {
            crowd.update(model, 1.0 / 60.0);
        }
        COUNTING.store(false, Ordering::Relaxed);
        let allocations = COUNT.load(Ordering::Relaxed);
        assert_eq!(allocations, 0, "{name}: {allocations} allocations in 420 crowd frames");
        assert!(crowd.palettes().iter().all(glam::Mat4::is_finite), "{name}");
    }
}

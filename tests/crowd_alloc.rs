//! Crowd frames allocate nothing, on any thread: a global counting allocator (counting on every
//! thread, so rayon's workers are included) around many `Crowd::update` calls.
#![allow(clippy::unwrap_used)]

use animtune::crowd::Crowd;
use devtools::alloc::{CountingAllocator, allocations_on_every_thread};

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

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
        // 7 s: every instance cross-fades at least once.
        let allocations = allocations_on_every_thread(|| {
            for _ in 0..420 {
                crowd.update(model, 1.0 / 60.0);
            }
        });
        assert_eq!(allocations, 0, "{name}: {allocations} allocations in 420 crowd frames");
        assert!(crowd.palettes().iter().all(glam::Mat4::is_finite), "{name}");
    }
}

//! Import, then the renderer's CPU-side preparation: animated bounds for framing (posed,
//! morphed and skinned vertices over the clip) and triangle-list indices of every primitive.
#![no_main]

use anim::SampleSettings;
use animtune::render::framing::{animated_bounds, triangle_list_indices};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(model) = anim::import::load_slice(data, None) else { return };
    for mesh in model.meshes() {
        for primitive in &mesh.primitives {
            let indices = triangle_list_indices(primitive);
            assert!(indices.iter().all(|&i| (i as usize) < primitive.positions.len()));
        }
    }
    let clip = (!model.clips().is_empty()).then(|| anim::ClipId::from_index(0));
    let _ = animated_bounds(&model, clip, &SampleSettings::default(), 8);
});

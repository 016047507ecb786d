//! Import, then sample every clip under every interpolation override (including hostile
//! times), take the pose to model space, build every skin's palette and run a cross-fade.
//! Outputs must be finite unless the file holds values beyond ±1e4, where products along the
//! hierarchy may overflow `f32` however correct the maths (as in `crates/anim/tests/fuzz_smoke.rs`).
#![no_main]

use anim::{
    ClipCursor, ClipId, CrossFader, Easing, InterpolationOverride, LocalMatrices, Model, PreparedSkin, SampleSettings,
    SoaPose, TrackValues,
};
use glam::{Affine3A, Mat4};
use libfuzzer_sys::fuzz_target;

/// Whether every number feeding the per-frame maths is within ±1e4.
fn sane(model: &Model) -> bool {
    let ok = |x: &f32| x.abs() <= 1e4;
    model.nodes().iter().all(|n| {
        n.rest.translation.to_array().iter().all(ok)
            && n.rest.scale.to_array().iter().all(ok)
            && n.rest_weights.iter().all(ok)
    }) && model.skins().iter().flat_map(|s| &s.inverse_bind_matrices).all(|m| m.to_cols_array().iter().all(ok))
        && model.clips().iter().flat_map(|c| c.tracks()).all(|t| match &t.values {
            TrackValues::Translation(v) | TrackValues::Scale(v) => v.iter().all(|v| v.to_array().iter().all(ok)),
            TrackValues::Rotation(q) => q.iter().all(|q| q.to_array().iter().all(ok)),
            TrackValues::Weights { values, .. } => values.iter().all(ok),
        })
}

fuzz_target!(|data: &[u8]| {
    let Ok(model) = anim::import::load_slice(data, None) else { return };
    let sane = sane(&model);
    let rest = model.rest_pose();
    let mut pose = rest.clone();
    let mut model_from_node = vec![Affine3A::IDENTITY; model.nodes().len()];
    let mut locals = LocalMatrices::new(model.nodes().len());
    let skins: Vec<PreparedSkin> = model.skins().iter().map(PreparedSkin::new).collect();
    let mut check = |pose: &SoaPose| {
        model.hierarchy.local_to_model(pose, &mut locals, &mut model_from_node);
        for skin in &skins {
            let mut palette = vec![Mat4::IDENTITY; skin.len()];
            skin.skinning_matrices(&model_from_node, &mut palette);
            assert!(!sane || palette.iter().all(Mat4::is_finite));
        }
        if !sane {
            return;
        }
        assert!(pose.is_finite());
        assert!(model_from_node.iter().all(Affine3A::is_finite));
    };
    for clip in model.clips() {
        let mut cursor = ClipCursor::new(clip);
        for mode in InterpolationOverride::ALL {
            let settings = SampleSettings::with_mode(mode);
            for t in [0.0, clip.end_secs() * 0.37, clip.end_secs(), -1.0, f32::NAN, f32::INFINITY, 1e30] {
                pose.copy_from(&rest);
                clip.sample(t, &mut cursor, &settings, &mut pose);
                check(&pose);
            }
        }
    }
    if !model.clips().is_empty() {
        let mut fader = CrossFader::new(&model, ClipId::from_index(0));
        let last = model.clips().len() - 1;
        for (dt, to) in [(0.1, last), (0.05, 0), (0.3, last), (10.0, 0)] {
            fader.trigger(ClipId::from_index(to), 0.2, Easing::Smoothstep);
            fader.advance(dt);
            let out = fader.evaluate(&model, &SampleSettings::default()).clone();
            check(&out);
        }
    }
});

//! The viewer's frame path (advance, then compute the frame: sampling or the fader, root
//! motion, local→model, overlays) allocates nothing, as authored and with root motion in place,
//! playing a clip and through a fade: a global counting allocator around many `Viewer::step`s.
#![allow(clippy::unwrap_used)]

use anim::RootMotion;
use animtune::ui::{ModelSource, Viewer};
use devtools::alloc::{CountingAllocator, allocations_on_this_thread};

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// The built-in character playing Walk with its trajectory drawn, T set to fade to Run; and
/// Walk's and Run's clip indices.
fn walking_to_run() -> (Viewer, anim::ClipId, anim::ClipId) {
    let model = anim::import::load_slice(animtune::mannequin::DEFAULT_MODEL_GLB, None).unwrap();
    let mut viewer = Viewer::new(model, ModelSource::built_in());
    let names = viewer.clip_names();
    let walk = names.iter().position(|n| n == "Walk").map(anim::ClipId::from_index).unwrap();
    let run = names.iter().position(|n| n == "Run").map(anim::ClipId::from_index).unwrap();
    viewer.overlays.trajectory = true;
    viewer.stage.transport.select_clip(walk);
    viewer.stage.set_fade_target(run);
    (viewer, walk, run)
}

#[test]
fn viewer_frames_allocate_nothing_as_authored_or_in_place() {
    let (mut viewer, walk, run) = walking_to_run();
    for mode in RootMotion::ALL {
        viewer.stage.tuning.set_root_motion("Walk", mode);
        viewer.stage.tuning.set_root_motion("Run", mode);
        viewer.stage.transport.select_clip(walk);
        viewer.stage.set_fade_target(run);
        // Warm-up: the trail, the fade history and the clip's path reach their working sizes.
        for _ in 0..400 {
            viewer.step(1.0 / 60.0);
        }
        let playing = allocations_on_this_thread(|| {
            for _ in 0..120 {
                viewer.step(1.0 / 60.0);
            }
        });
        viewer.trigger_fade();
        viewer.step(1.0 / 60.0);
        assert!(viewer.stage.transport.is_fading(), "{mode:?}");
        let fading = allocations_on_this_thread(|| {
            for _ in 0..10 {
                viewer.step(1.0 / 60.0);
            }
        });
        assert!(viewer.stage.transport.is_fading(), "{mode:?}: still fading while counted");
        assert_eq!((playing, fading), (0, 0), "{mode:?}: allocations playing, fading");
    }
}

/// The drive keys' per-frame work (find Idle, Walk and Run by name, compare with what the keys
/// asked last) allocates nothing, held or released.
#[test]
fn the_drive_keys_and_parameter_bindings_frame_check_allocates_nothing() {
    use anim::state_machine::ParamKind;
    use animtune::ui::machine::{DriveKeys, DriveStates};
    use animtune::ui::machine_keys::{BindingEffect, DriveTargets, ParamBinding, binding_change, key_bit};
    let model = anim::import::load_slice(animtune::mannequin::DEFAULT_MODEL_GLB, None).unwrap();
    let mut viewer = Viewer::new(model, ModelSource::built_in());
    viewer
        .stage
        .edit_machine(|m| {
            m.add_param("speed", ParamKind::Float(0.0));
            m.add_param("crouch", ParamKind::Bool(false));
        })
        .unwrap();
    // Warm up (the histories reach their capacity), as above.
    for _ in 0..400 {
        viewer.step(1.0 / 60.0);
    }
    let mut keys = DriveKeys::default();
    // A chosen target is looked up by name every frame.
    let targets = DriveTargets { run: Some("Run".to_owned()), ..DriveTargets::default() };
    // The bindings are the tuning's, keys by name, as the viewer's drive keys read them.
    viewer.stage.edit_tuning(|t| {
        t.machine_keys.bindings = vec![
            ParamBinding::new("speed", "E", BindingEffect::SetFloat { value: 2.0 }),
            ParamBinding::new("crouch", "C", BindingEffect::Hold),
        ];
    });
    let mut held_keys = 0_u32;
    let mut requests = 0;
    let mut actions = 0;
    let counted = allocations_on_this_thread(|| {
        for frame in 0..240 {
            let held = (120..200).contains(&frame);
            let states = DriveStates::of(viewer.stage.machine().machine(), &targets);
            requests += usize::from(keys.update(held, frame >= 160, states).is_some());
            for i in 0..viewer.stage.tuning.machine_keys.bindings.len() {
                let binding = &viewer.stage.tuning.machine_keys.bindings[i];
                let bit = egui::Key::from_name(&binding.key).and_then(key_bit).unwrap();
                let change = binding_change(binding, held_keys & bit != 0, held, viewer.stage.machine().machine());
                held_keys = if held { held_keys | bit } else { held_keys & !bit };
                if let Some(change) = change {
                    viewer.apply_machine_action(change.into());
                    actions += 1;
                }
            }
            viewer.step(1.0 / 60.0);
        }
    });
    assert!(DriveStates::of(viewer.stage.machine().machine(), &targets).drivable());
    // W held 120..200 with Shift from 160: Walk, Run, then Idle on release; each binding
    // acts on the press and on the release.
    assert_eq!((counted, requests, actions), (0, 3, 4), "allocations, requests, binding actions");
}

/// The blend space playing, a transition from it to Idle and one from Idle back into it:
/// every frame allocates nothing (the trigger copies the blend space once, outside the count).
#[test]
fn blend_space_frames_and_transitions_from_and_to_it_allocate_nothing() {
    use animtune::stage::layers::{BlendPointSpec, BlendSpaceSpec, BlendSpaceTuning};
    let model = anim::import::load_slice(animtune::mannequin::DEFAULT_MODEL_GLB, None).unwrap();
    let mut viewer = Viewer::new(model, ModelSource::built_in());
    let idle = viewer.clip_names().iter().position(|n| n == "Idle").map(anim::ClipId::from_index).unwrap();
    let point = |clip: &str, x: f32| BlendPointSpec { clip: clip.to_owned(), x, y: None };
    let space = BlendSpaceTuning {
        space: BlendSpaceSpec { points: vec![point("Walk", 1.4), point("Run", 3.4)] },
        at: [2.4, 0.0],
        phase_sync: true,
        active: true,
    };
    viewer.stage.edit_tuning(|t| t.clip_extras.blend_space = Some(space));
    viewer.stage.set_fade_target(idle);
    let count = |viewer: &mut Viewer, frames: usize| {
        allocations_on_this_thread(|| {
            for _ in 0..frames {
                viewer.step(1.0 / 60.0);
            }
        })
    };
    for _ in 0..400 {
        viewer.step(1.0 / 60.0);
    }
    let playing = count(&mut viewer, 120);
    assert!(viewer.stage.blend_space_on_screen());
    viewer.trigger_fade();
    viewer.step(1.0 / 60.0);
    assert!(viewer.stage.transport.is_fading(), "T from the blend space fades");
    let from = count(&mut viewer, 10);
    assert!(viewer.stage.transport.is_fading(), "still fading while counted");
    for _ in 0..120 {
        viewer.step(1.0 / 60.0);
    }
    assert!(viewer.stage.fade_to_blend_space(), "the fade into the blend space starts");
    viewer.step(1.0 / 60.0);
    let to = count(&mut viewer, 10);
    assert!(viewer.stage.transport.is_fading(), "still fading while counted");
    assert_eq!((playing, from, to), (0, 0, 0), "allocations: blend space, from it, to it");
}

/// Scrubbing allocates nothing per frame: the rewind slider moved every frame (the stored
/// frame's pose, facts and model-space matrices written into the frame), the arrows' one-frame
/// steps, the panels' shown facts read, and the step back to live.
#[test]
fn scrubbing_the_rewind_allocates_nothing_per_frame() {
    let (mut viewer, ..) = walking_to_run();
    for frame in 0..400 {
        if frame == 300 {
            viewer.trigger_fade();
        }
        viewer.step(1.0 / 60.0);
    }
    let held = viewer.stage.rewind().held_secs();
    assert!(held > 6.0, "held {held}");
    // Warm-up: the first scrub.
    assert!(viewer.stage.rewind_to(1.0));
    viewer.step(1.0 / 60.0);
    let mut checksum = 0.0;
    let scrubbing = allocations_on_this_thread(|| {
        for frame in 0..240 {
            // The slider moves every frame, back over the fade and between stored frames.
            viewer.stage.rewind_to(0.5 + f64::from(frame) * 0.0237);
            viewer.step(1.0 / 60.0);
            let shown = viewer.stage.shown();
            checksum += shown.clip_secs + shown.transition.map_or(0.0, |t| t.weight);
        }
        for _ in 0..30 {
            viewer.stage.step_rewind(-1);
            viewer.step(1.0 / 60.0);
        }
        for _ in 0..30 {
            viewer.stage.step_rewind(1);
            viewer.step(1.0 / 60.0);
        }
    });
    assert!(viewer.stage.is_rewound());
    assert!(checksum > 0.0);
    let resuming = allocations_on_this_thread(|| {
        viewer.stage.resume_live();
        for _ in 0..10 {
            viewer.step(1.0 / 60.0);
        }
    });
    assert_eq!((scrubbing, resuming), (0, 0), "allocations scrubbing, resuming live");
}

/// The state machine in a blend-space state (fading into it, then playing it) and in a layered
/// state (its layers fading in, then on): every frame allocates nothing (the players are built
/// once, when the machine is edited).
#[test]
fn machine_blend_space_and_layered_state_frames_allocate_nothing() {
    use anim::state_machine::{
        BlendSpaceMotion, BlendSpacePoint, LayerMotion, LayeredMotion, PaintedJoint, ParamKind, State, StateMotion,
        StateTransition, TransitionFrom,
    };
    let model = anim::import::load_slice(animtune::mannequin::DEFAULT_MODEL_GLB, None).unwrap();
    let mut viewer = Viewer::new(model, ModelSource::built_in());
    let clip = |viewer: &Viewer, name: &str| {
        viewer.clip_names().iter().position(|n| n == name).map(anim::ClipId::from_index).unwrap()
    };
    let (idle, walk, run, wave) =
        (clip(&viewer, "Idle"), clip(&viewer, "Walk"), clip(&viewer, "Run"), clip(&viewer, "Wave"));
    viewer
        .stage
        .edit_machine(|m| {
            let speed = m.add_param("speed", ParamKind::Float(2.4));
            let point = |clip, x| BlendSpacePoint { clip, position: glam::Vec2::new(x, 0.0) };
            let space = StateMotion::BlendSpace(BlendSpaceMotion {
                name: "locomotion".to_owned(),
                two_d: false,
                points: vec![point(walk, 1.4), point(run, 3.4)],
                x_param: Some(speed),
                y_param: None,
                phase_sync: true,
            });
            let layer = LayerMotion {
                clip: wave,
                weight: 0.8,
                additive: false,
                mask: vec!["upper-body".to_owned()],
                joint_weights: vec![PaintedJoint { joint: "UpperArm.L".to_owned(), weight: 0.5, subtree: true }],
            };
            let layered = StateMotion::Layered(LayeredMotion { base: idle, layers: vec![layer] });
            for (name, motion) in [("Locomotion", space), ("Waving", layered)] {
                let to = m.add_state(State { name: name.to_owned(), motion, position: glam::Vec2::ZERO });
                m.add_transition(StateTransition::new(TransitionFrom::Any, to, 0.3));
            }
        })
        .unwrap();
    let find = |viewer: &Viewer, name: &str| viewer.stage.machine().machine().find_state(name).unwrap();
    let (locomotion, waving) = (find(&viewer, "Locomotion"), find(&viewer, "Waving"));
    let count = |viewer: &mut Viewer, frames: usize| {
        allocations_on_this_thread(|| {
            for _ in 0..frames {
                viewer.step(1.0 / 60.0);
            }
        })
    };
    for _ in 0..60 {
        viewer.step(1.0 / 60.0);
    }
    // Once through every state first: buffers that grow on first use (the fader's, the
    // rewind's) are warm, as the other tests warm up.
    let idle_state = find(&viewer, "Idle");
    for state in [locomotion, waving, idle_state] {
        viewer.stage.request_state(state).unwrap();
        for _ in 0..60 {
            viewer.step(1.0 / 60.0);
        }
    }
    viewer.stage.request_state(locomotion).unwrap();
    viewer.step(1.0 / 60.0);
    let into_space = count(&mut viewer, 10);
    assert!(viewer.stage.transport.is_fading(), "still fading into the blend space while counted");
    for _ in 0..60 {
        viewer.step(1.0 / 60.0);
    }
    let space = count(&mut viewer, 60);
    assert_eq!(viewer.stage.machine().output().state, locomotion);
    viewer.stage.request_state(waving).unwrap();
    viewer.step(1.0 / 60.0);
    let into_layers = count(&mut viewer, 10);
    for _ in 0..60 {
        viewer.step(1.0 / 60.0);
    }
    let layers = count(&mut viewer, 60);
    assert_eq!(viewer.stage.machine().output().state, waving);
    assert_eq!((into_space, space, into_layers, layers), (0, 0, 0, 0), "allocations: fade in, blend, fade in, layers");
}

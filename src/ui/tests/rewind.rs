//! The rewind followed by the panels: while rewound, the timeline's playhead, the Curves panel,
//! the State machine, Layers and Cross-fade sections show the stored frame's facts (clip time,
//! state, transition progress, layer weights), marked "rewound −S s"; ← and → step one stored
//! frame; Esc returns live and the panels show the live values again.

use anim::state_machine::StateId;
use anim::{Easing, TransitionKind};
use egui::Key;
use egui_kittest::kittest::Queryable as _;

use super::{clip, viewer, whole};
use crate::stage::layers::LayerSpec;
use crate::stage::tuning::FadeTuning;
use crate::ui::Panel;
use crate::ui::rewind::rewound_label;

const DT: f32 = 1.0 / 60.0;

/// What the stage showed at one frame of a fade, read live.
struct Seen {
    clock_secs: f64,
    clip_secs: f32,
    state_secs: f32,
    elapsed_secs: f32,
    weight: f32,
    layer_weight: f32,
}

#[test]
fn a_rewind_into_a_finished_walk_to_run_fade_shows_its_recorded_progress_and_clip_time_then_live_again() {
    let mut viewer = viewer();
    let (walk, run) = (clip(&viewer, "Walk"), clip(&viewer, "Run"));
    viewer.stage.tuning.set_transition(walk, run, FadeTuning::cross_fade(0.8, Easing::Linear));
    viewer.stage.tuning.clip_extras.layers.push(LayerSpec { ramp_secs: 2.0, ..LayerSpec::new("Wave") });
    viewer.stage.transport.select_clip(walk);
    for _ in 0..60 {
        viewer.step(DT);
    }
    let run_state: StateId = viewer.stage.machine().machine().find_state("Run").expect("Run state");
    viewer.stage.request_state(run_state).expect("Walk -> Run");
    // 0.4 s into the 0.8 s fade.
    for _ in 0..24 {
        viewer.step(DT);
    }
    let stage = &viewer.stage;
    let running = stage.machine().output().transition.expect("the fade runs");
    let seen = Seen {
        clock_secs: stage.transport.clock_secs(),
        clip_secs: stage.transport.time_secs(),
        state_secs: stage.machine().output().state_secs,
        elapsed_secs: running.elapsed_secs,
        weight: running.weight,
        layer_weight: stage.frame().layers.layer_weight(0),
    };
    assert!((seen.elapsed_secs - 0.4).abs() < 0.02, "elapsed {}", seen.elapsed_secs);
    // The fade ends and the layer finishes its ramp: live has moved on.
    for _ in 0..90 {
        viewer.step(DT);
    }
    assert_eq!(viewer.stage.machine().output().transition, None, "the 0.8 s fade ended");
    let back_secs = viewer.stage.transport.clock_secs() - seen.clock_secs;
    assert!((back_secs - 1.5).abs() < 1e-3, "{back_secs}");
    assert!(viewer.stage.rewind_to(back_secs));

    // The stage's one place: the stored frame's facts, exactly as they were.
    let shown = viewer.stage.shown();
    assert_eq!(shown.clip, Some(run));
    assert_eq!(shown.clip_secs, seen.clip_secs);
    assert_eq!(shown.state, Some(run_state));
    assert_eq!(shown.state_secs, seen.state_secs);
    let t = shown.transition.expect("the recorded transition");
    assert_eq!((t.elapsed_secs, t.duration_secs, t.weight), (seen.elapsed_secs, 0.8, seen.weight));
    assert_eq!(t.kind, TransitionKind::CrossFade);
    assert_eq!(shown.layer_weight(0), seen.layer_weight);
    let live_layer = viewer.stage.frame().layers.layer_weight(0);
    assert!(seen.layer_weight < 0.9 && live_layer > 0.99, "ramping then {}, live {live_layer}", seen.layer_weight);
    let live_time = viewer.stage.transport.time_secs();
    eprintln!(
        "rewound {back_secs:.3} s: Run at {:.4} s, {:.4} s in Run, Walk -> Run {:.4} / 0.8 s weight {:.4}, \
         Wave layer {:.4}; live: Run at {live_time:.4} s, Wave {live_layer:.4}",
        seen.clip_secs, seen.state_secs, seen.elapsed_secs, seen.weight, seen.layer_weight
    );
    assert!((live_time - seen.clip_secs).abs() > 0.05, "live clip time {live_time} moved on from {}", seen.clip_secs);

    viewer.focus_panel = Some(Panel::StateMachine);
    let mut harness = whole(viewer, [1280.0, 3200.0]);
    harness.run();
    harness.get_by_label("Layers").click();
    harness.run();
    let secs = harness.state().stage.rewind().scrub_secs_before_live().expect("rewound");
    assert!((secs - back_secs).abs() < 1e-9);
    let rewound = rewound_label(secs);
    assert_eq!(rewound, "rewound −1.50 s");
    // State machine: the recorded state, transition and progress.
    harness.get_by_label(&format!("{rewound}: as recorded (Esc: live)"));
    let transition = format!("Transition: Walk -> Run ({})", TransitionKind::CrossFade.name());
    harness.get_by_label(&transition);
    harness.get_by_label(&format!("{:.2} / 0.80 s", seen.elapsed_secs));
    // Timeline: the recorded clip time.
    let run_secs = harness.state().stage.model()[run].duration_secs();
    harness.get_by_label(&format!("{rewound}: {:6.3} s / {run_secs:.3} s", seen.clip_secs));
    // Curves: the cursor marked as the recorded time.
    harness.get_by_label(&format!("{rewound}: the cursor at the recorded clip time (Esc: live)"));
    // Cross-fade: the recorded transition.
    harness.get_by_label(&format!(
        "{rewound}: Run at {:.2} s, cross-fade {:.2} / 0.80 s (weight {:.2})",
        seen.clip_secs, seen.elapsed_secs, seen.weight
    ));
    // Layers: the recorded weight.
    harness.get_by_label(&format!("weight {:.2} ({rewound}); --layer Wave", seen.layer_weight));

    // Esc: live again, and the panels show the live values.
    harness.key_press(Key::Escape);
    harness.run();
    assert!(!harness.state().stage.is_rewound(), "Esc resumes");
    assert!(harness.query_by_label(&transition).is_none());
    harness.get_by_label("No transition running.");
    harness.get_by_label(&format!("weight now {live_layer:.2}; --layer Wave"));
    assert!(harness.query_by_label(&format!("{rewound}: as recorded (Esc: live)")).is_none());
}

#[test]
fn arrows_step_one_recorded_frame_while_rewound_and_the_live_clip_while_not() {
    let mut viewer = viewer();
    viewer.stage.transport.select_clip(clip(&viewer, "Walk"));
    for _ in 0..120 {
        viewer.step(DT);
    }
    let live_time = viewer.stage.transport.time_secs();
    assert!(viewer.stage.rewind_to(1.0));
    let mut harness = whole(viewer, [1280.0, 900.0]);
    harness.run();
    let at = |h: &egui_kittest::Harness<'_, crate::ui::Viewer>| h.state().stage.rewind().scrub_secs_before_live();
    let start = at(&harness).expect("rewound");
    harness.key_press(Key::ArrowLeft);
    harness.run();
    let back = at(&harness).expect("still rewound");
    assert!((back - start - f64::from(DT)).abs() < 1e-4, "one 60 Hz frame back: {start} -> {back}");
    harness.key_press(Key::ArrowRight);
    harness.run();
    harness.key_press(Key::ArrowRight);
    harness.run();
    let forward = at(&harness).expect("still rewound");
    assert!((start - forward - f64::from(DT)).abs() < 1e-4, "one frame forward of the start: {forward}");
    assert_eq!(harness.state().stage.transport.time_secs(), live_time, "the live clip did not step");
    // Forward stops at the newest stored frame, still rewound; back stops at the oldest.
    for _ in 0..70 {
        harness.key_press(Key::ArrowRight);
        harness.run();
    }
    assert_eq!(at(&harness), Some(0.0));
    let held = harness.state().stage.rewind().held_secs();
    harness.state_mut().stage.rewind_to(held - 0.01);
    harness.key_press(Key::ArrowLeft);
    harness.run();
    harness.key_press(Key::ArrowLeft);
    harness.run();
    assert_eq!(at(&harness), Some(held), "clamped to the oldest frame");
    // Esc: live, and ← is the clip's frame step again (it pauses).
    harness.key_press(Key::Escape);
    harness.run();
    assert!(!harness.state().stage.is_rewound());
    harness.key_press(Key::ArrowLeft);
    harness.run();
    let stage = &harness.state().stage;
    assert!(!stage.is_rewound(), "← while live does not rewind");
    assert!(!stage.transport.playing, "a frame step pauses");
    assert_ne!(stage.transport.time_secs(), live_time, "stepped the live clip");
}

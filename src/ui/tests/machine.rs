//! The State machine section and the drive keys: W walks, Shift+W runs, releasing goes back to
//! Idle, each through the machine's own transition played by the stage's fader; a state's
//! button requests it; the running transition's progress shows its seconds.

use anim::state_machine::StateId;
use anim::{Easing, TransitionKind};
use egui::{Key, Modifiers};
use egui_kittest::kittest::Queryable as _;

use super::{clip, viewer, whole};
use crate::stage::tuning::FadeTuning;
use crate::ui::{Panel, Viewer};

/// The built-in character with Idle -> Walk tuned to a 0.8 s linear cross-fade (not the
/// default 0.3 s, so the fade's length is the edge's).
fn tuned_viewer() -> Viewer {
    let mut viewer = viewer();
    let (idle, walk) = (clip(&viewer, "Idle"), clip(&viewer, "Walk"));
    viewer.stage.tuning.set_transition(idle, walk, FadeTuning::cross_fade(0.8, Easing::Linear));
    viewer
}

fn state(viewer: &Viewer, name: &str) -> StateId {
    viewer.stage.machine().machine().find_state(name).unwrap_or_else(|| panic!("no state {name}"))
}

/// The active state's name.
fn active(viewer: &Viewer) -> String {
    viewer.stage.machine().state_name(viewer.stage.machine().output().state)
}

/// The fader's running fade: (target clip, its length in seconds).
fn fading(viewer: &Viewer) -> Option<(anim::ClipId, f32)> {
    let fader = viewer.stage.transport.fader();
    fader.is_fading().then(|| fader.layers().last().map(|l| (l.clip, l.duration_secs))).flatten()
}

#[test]
fn holding_w_fades_idle_to_walk_over_the_edges_duration_and_releasing_returns_to_idle() {
    let viewer = tuned_viewer();
    let (idle, walk) = (state(&viewer, "Idle"), state(&viewer, "Walk"));
    let walk_clip = clip(&viewer, "Walk");
    let mut harness = whole(viewer, [1280.0, 2600.0]);
    harness.run();
    assert_eq!(active(harness.state()), "Idle");
    harness.key_down(Key::W);
    harness.step();
    let running = harness.state().stage.machine().output().transition.expect("W starts a transition");
    assert_eq!((running.from, running.to), (idle, walk));
    assert!((running.duration_secs - 0.8).abs() < 1e-6, "the edge's 0.8 s, got {}", running.duration_secs);
    assert_eq!(fading(harness.state()), Some((walk_clip, 0.8)), "the stage's fader plays the edge");
    // Held for 1 s of clock: the fade is over and Walk plays.
    for _ in 0..60 {
        harness.state_mut().step(1.0 / 60.0);
    }
    harness.step();
    assert_eq!(active(harness.state()), "Walk");
    assert_eq!(harness.state().stage.machine().output().transition, None, "the 0.8 s fade ended");
    harness.key_up(Key::W);
    harness.step();
    assert_eq!(active(harness.state()), "Idle", "releasing W requests Idle");
    let back = harness.state().stage.machine().output().transition.expect("Walk -> Idle runs");
    assert_eq!((back.from, back.to), (walk, idle));
    assert_eq!(fading(harness.state()).map(|(c, _)| c), Some(clip(harness.state(), "Idle")));
}

#[test]
fn shift_w_runs_and_letting_go_of_shift_walks_again() {
    let viewer = tuned_viewer();
    let (walk, run) = (state(&viewer, "Walk"), state(&viewer, "Run"));
    let mut harness = whole(viewer, [1280.0, 2600.0]);
    harness.run();
    harness.event(egui::Event::ModifiersChanged(Modifiers::SHIFT));
    harness.key_down(Key::W);
    harness.step();
    assert_eq!(active(harness.state()), "Run");
    let t = harness.state().stage.machine().output().transition.expect("Idle -> Run");
    assert_eq!(t.to, run);
    assert_eq!(fading(harness.state()).map(|(c, _)| c), Some(clip(harness.state(), "Run")));
    harness.event(egui::Event::ModifiersChanged(Modifiers::NONE));
    harness.step();
    assert_eq!(active(harness.state()), "Walk", "W still held without Shift");
    assert_eq!(harness.state().stage.machine().output().transition.map(|t| (t.from, t.to)), Some((run, walk)));
}

#[test]
fn a_states_button_requests_it_and_the_progress_bar_shows_the_transitions_seconds() {
    let mut viewer = tuned_viewer();
    viewer.focus_panel = Some(Panel::StateMachine);
    let mut harness = whole(viewer, [1280.0, 2600.0]);
    harness.run();
    harness.get_by_label("No transition running.");
    harness.get_by_label("Go to Walk").click();
    harness.step();
    harness.step();
    assert_eq!(active(harness.state()), "Walk", "the button requested Walk");
    assert_eq!(fading(harness.state()).map(|(_, secs)| secs), Some(0.8), "through the tuned Idle -> Walk edge");
    harness.state_mut().step(0.25);
    harness.step();
    let kind = TransitionKind::CrossFade.name();
    harness.get_by_label(&format!("Transition: Idle -> Walk ({kind})"));
    harness.get_by_label("0.25 / 0.80 s");
    harness.get_by_label("Keys (3D view, not while typing): hold W: Walk, Shift+W: Run, release: Idle.");
}

#[test]
fn a_bool_parameters_checkbox_and_a_triggers_button_open_their_transitions() {
    use anim::state_machine::{Condition, ParamKind, StateTransition, TransitionFrom};
    let mut viewer = viewer();
    let (idle, walk, jump) = (state(&viewer, "Idle"), state(&viewer, "Walk"), state(&viewer, "Jump"));
    viewer
        .stage
        .edit_machine(|m| {
            let moving = m.add_param("moving", ParamKind::Bool(false));
            let hop = m.add_param("hop", ParamKind::Trigger);
            m.add_transition(StateTransition {
                conditions: vec![Condition::Bool { param: moving, value: true }],
                priority: 1,
                ..StateTransition::new(TransitionFrom::State(idle), walk, 0.4)
            });
            m.add_transition(StateTransition {
                conditions: vec![Condition::Trigger(hop)],
                priority: 1,
                ..StateTransition::new(TransitionFrom::State(walk), jump, 0.2)
            });
        })
        .expect("a valid machine");
    viewer.focus_panel = Some(Panel::StateMachine);
    let mut harness = whole(viewer, [1280.0, 2600.0]);
    harness.run();
    harness.get_by_label("moving").click();
    harness.step();
    harness.state_mut().step(1.0 / 60.0);
    assert_eq!(active(harness.state()), "Walk", "the checkbox set moving; Idle -> Walk opened");
    assert_eq!(fading(harness.state()).map(|(_, secs)| secs), Some(0.4), "the conditioned edge's 0.4 s");
    // The 0.4 s fade ends (no interruption by default), then the trigger fires.
    for _ in 0..30 {
        harness.state_mut().step(1.0 / 60.0);
    }
    harness.step();
    harness.get_by_label("Fire hop").click();
    harness.step();
    harness.state_mut().step(1.0 / 60.0);
    assert_eq!(active(harness.state()), "Jump", "the trigger opened Walk -> Jump");
    assert_eq!(fading(harness.state()).map(|(_, secs)| secs), Some(0.2));
}

#[test]
fn a_refused_request_is_said_in_the_status_bar() {
    let mut viewer = viewer();
    viewer.apply_machine_action(crate::ui::machine::MachineAction::Request(StateId::new(99)));
    assert_eq!(active(&viewer), "Idle", "nothing changed");
    let mut harness = whole(viewer, [1280.0, 900.0]);
    harness.run();
    harness.get_by_label("State machine: cannot go to #99: state 99 does not exist");
}

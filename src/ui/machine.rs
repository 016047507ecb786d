//! The State machine section: the stage's machine as an artist drives it — its states (the
//! active one highlighted, a button each to request it), the running transition (from → to,
//! kind, a progress bar with elapsed / duration seconds), its parameters as sliders, checkboxes
//! and buttons, and which keys drive which states. It draws and returns a [`MachineAction`]; the
//! viewer applies it to the stage (`Stage::request_state`, the runtime's setters).
//!
//! What it shows comes from the stage's [`ShownFacts`]: while rewound, the stored frame's active
//! state, transition and parameters, marked "rewound −1.25 s", with the requests and the
//! parameters greyed out (they act on the live machine: Esc or Live first).
//!
//! [`DriveKeys`] turns the drive keys' held state (W, Shift+W in `shortcuts::SHORTCUTS`) into
//! one request per change: W down → Walk, Shift too → Run, W up → Idle, once.

use anim::state_machine::{ParamId, ParamKind, ParamValue, StateId, StateMachine};

use super::shortcuts::{DRIVE_KEY, DRIVE_REST_STATE, Gait, chord_label};
use crate::stage::machine::StageMachine;
use crate::stage::rewind::ShownFacts;

/// What the user did in the section.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MachineAction {
    /// Go to this state through the machine's own transition.
    Request(StateId),
    /// Set a float parameter.
    SetFloat(ParamId, f32),
    /// Set a bool parameter.
    SetBool(ParamId, bool),
    /// Set a trigger (consumed by the transition that uses it).
    Fire(ParamId),
}

/// The states the drive keys request, found by name ignoring case (`None`: the machine has no
/// state of that name).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DriveStates {
    /// Where releasing the keys goes (Idle).
    pub rest: Option<StateId>,
    /// W (Walk).
    pub walk: Option<StateId>,
    /// Shift+W (Run).
    pub run: Option<StateId>,
}

impl DriveStates {
    /// The drive states of `machine` (no allocation).
    pub fn of(machine: &StateMachine) -> Self {
        let find = |name: &str| {
            let index = machine.states().iter().position(|s| s.name.eq_ignore_ascii_case(name))?;
            Some(StateId::new(u32::try_from(index).ok()?))
        };
        Self { rest: find(DRIVE_REST_STATE), walk: find(Gait::Walk.state_name()), run: find(Gait::Run.state_name()) }
    }

    /// True when the keys do something: the machine has a rest (Idle) and a Walk state.
    pub fn drivable(self) -> bool {
        self.rest.is_some() && self.walk.is_some()
    }

    fn of_gait(self, gait: Gait) -> Option<StateId> {
        match gait {
            Gait::Walk => self.walk,
            Gait::Run => self.run,
        }
    }
}

/// What the drive keys asked for last, so that a held key requests its state once and a
/// release requests the rest state once (not every frame).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DriveKeys {
    held: Option<Gait>,
}

impl DriveKeys {
    /// The gait the keys hold now (`None`: released, or never pressed).
    pub fn held(self) -> Option<Gait> {
        self.held
    }

    /// This frame's keys: `walk_down` (W held) and `shift_down`. Returns the state to request
    /// when what the keys ask for changed: Walk, Run (Walk when the machine has no Run), or the
    /// rest state on release. Nothing when the machine is not drivable ([`DriveStates::drivable`]).
    pub fn update(&mut self, walk_down: bool, shift_down: bool, states: DriveStates) -> Option<StateId> {
        if !states.drivable() {
            self.held = None;
            return None;
        }
        let wanted = walk_down.then(|| if shift_down && states.run.is_some() { Gait::Run } else { Gait::Walk });
        if wanted == self.held {
            return None;
        }
        self.held = wanted;
        match wanted {
            Some(gait) => states.of_gait(gait),
            None => states.rest,
        }
    }
}

/// The section: states, the running transition, parameters and the drive keys of `machine`,
/// as `shown` has them (live, or the rewound frame's).
pub fn machine_ui(
    ui: &mut egui::Ui,
    machine: &StageMachine,
    shown: &ShownFacts<'_>,
    drive: DriveStates,
) -> Option<MachineAction> {
    if let Some(problem) = machine.problem() {
        ui.weak(format!("No state machine: {problem}."));
        return None;
    }
    let mut action = None;
    if let Some(secs) = shown.rewound_secs {
        ui.colored_label(
            ui.visuals().warn_fg_color,
            format!("{}: as recorded (Esc: live)", super::rewind::rewound_label(secs)),
        );
    }
    ui.horizontal_wrapped(|ui| {
        ui.label("Active state:");
        ui.strong(shown.state.map_or_else(|| "none".to_owned(), |s| machine.state_name(s)));
        ui.weak(format!("{:.2} s in it", shown.state_secs));
    });
    match shown.transition {
        Some(t) => {
            ui.label(format!(
                "Transition: {} -> {} ({})",
                machine.state_name(t.from),
                machine.state_name(t.to),
                t.kind.name()
            ));
            ui.add(
                egui::ProgressBar::new(t.progress())
                    .text(format!("{:.2} / {:.2} s", t.elapsed_secs, t.duration_secs))
                    .desired_width(240.0),
            );
        }
        None => _ = ui.weak("No transition running."),
    }
    let live = !shown.is_rewound();
    ui.separator();
    ui.label("States (click to go there through the machine's transition):");
    ui.horizontal_wrapped(|ui| {
        for (i, state) in machine.machine().states().iter().enumerate() {
            let Some(id) = u32::try_from(i).ok().map(StateId::new) else { continue };
            let active = Some(id) == shown.state;
            let button = egui::Button::selectable(active, format!("Go to {}", state.name));
            if ui
                .add_enabled(live, button)
                .on_hover_text(format!("Request {} (as the game would)", state.name))
                .clicked()
            {
                action = Some(MachineAction::Request(id));
            }
        }
    });
    ui.separator();
    if let Some(a) = ui.add_enabled_ui(live, |ui| params_ui(ui, machine, shown)).inner {
        action = Some(a);
    }
    ui.separator();
    keys_ui(ui, drive);
    action
}

/// The machine's parameters (their values as `shown` has them): floats as sliders, bools as
/// checkboxes, triggers as buttons.
fn params_ui(ui: &mut egui::Ui, machine: &StageMachine, shown: &ShownFacts<'_>) -> Option<MachineAction> {
    let params = machine.machine().params();
    if params.is_empty() {
        ui.weak("No parameters (a machine built from the transition table has none).");
        return None;
    }
    let mut action = None;
    for (i, param) in params.iter().enumerate() {
        let Some(id) = u32::try_from(i).ok().map(ParamId::new) else { continue };
        let value = shown.param(id);
        ui.push_id(("param", i), |ui| match (param.kind, value) {
            (ParamKind::Float(start), Some(ParamValue::Float(mut v))) => {
                let high = 1.0_f32.max(2.0 * start).max(v);
                let low = 0.0_f32.min(start).min(v);
                if ui.add(egui::Slider::new(&mut v, low..=high).text(param.name.as_str())).changed() {
                    action = Some(MachineAction::SetFloat(id, v));
                }
            }
            (ParamKind::Bool(_), Some(ParamValue::Bool(mut v))) => {
                if ui.checkbox(&mut v, param.name.as_str()).changed() {
                    action = Some(MachineAction::SetBool(id, v));
                }
            }
            (ParamKind::Trigger, Some(ParamValue::Trigger(set))) => {
                ui.horizontal(|ui| {
                    if ui.button(format!("Fire {}", param.name)).clicked() {
                        action = Some(MachineAction::Fire(id));
                    }
                    if set {
                        ui.weak("set, not yet used");
                    }
                });
            }
            _ => _ = ui.weak(format!("{}: no value", param.name)),
        });
    }
    action
}

/// Which keys drive which states, or why they do nothing.
fn keys_ui(ui: &mut egui::Ui, drive: DriveStates) {
    let walk_key = chord_label(egui::Modifiers::NONE, DRIVE_KEY);
    let run_key = chord_label(egui::Modifiers::SHIFT, DRIVE_KEY);
    if drive.drivable() {
        let run = if drive.run.is_some() { "Run" } else { "Walk (no Run state)" };
        ui.label(format!(
            "Keys (3D view, not while typing): hold {walk_key}: Walk, {run_key}: {run}, release: {DRIVE_REST_STATE}."
        ));
    } else {
        ui.weak(format!(
            "{walk_key} and {run_key} drive states named {DRIVE_REST_STATE}, Walk and Run (any case); this machine \
             lacks {}, so they do nothing.",
            if drive.rest.is_none() { DRIVE_REST_STATE } else { "Walk" }
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn states() -> DriveStates {
        DriveStates { rest: Some(StateId::new(0)), walk: Some(StateId::new(1)), run: Some(StateId::new(2)) }
    }

    #[test]
    fn held_keys_request_each_state_once_and_the_rest_state_once_on_release() {
        let mut keys = DriveKeys::default();
        let s = states();
        assert_eq!(keys.update(false, false, s), None, "nothing held, nothing asked");
        assert_eq!(keys.update(true, false, s), s.walk);
        assert_eq!(keys.update(true, false, s), None, "held: asked once");
        assert_eq!(keys.update(true, true, s), s.run, "Shift while W is held: Run");
        assert_eq!(keys.update(true, false, s), s.walk, "Shift let go: Walk again");
        assert_eq!(keys.update(false, false, s), s.rest);
        assert_eq!(keys.update(false, false, s), None, "released: Idle asked once");
        assert_eq!(keys.update(false, true, s), None, "Shift alone does nothing");
    }

    #[test]
    fn without_idle_or_walk_the_keys_do_nothing_and_without_run_shift_walks() {
        let mut keys = DriveKeys::default();
        let no_walk = DriveStates { walk: None, ..states() };
        assert_eq!(keys.update(true, false, no_walk), None);
        let no_run = DriveStates { run: None, ..states() };
        assert_eq!(keys.update(true, true, no_run), no_run.walk);
    }
}

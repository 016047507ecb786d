//! The State machine section: the stage's machine as an artist drives it — its states (the
//! active one highlighted, a button each to request it), the running transition (from → to,
//! kind, a progress bar with elapsed / duration seconds), its parameters as sliders, checkboxes
//! and buttons, and which keys drive which states. It draws and returns a [`MachineAction`]; the
//! viewer applies it to the stage (`Stage::request_state`, the runtime's setters). "Graph…"
//! opens the same machine as a node graph (`machine_graph.rs`).
//!
//! What it shows comes from the stage's [`ShownFacts`]: while rewound, the stored frame's active
//! state, transition and parameters, marked "rewound −1.25 s", with the requests and the
//! parameters greyed out (they act on the live machine: Esc or Live first).
//!
//! [`DriveKeys`] turns the drive keys' held state (W, Shift+W in `shortcuts::SHORTCUTS`) into
//! one request per change: W down → the walk state, Shift too → the run state, W up → the rest
//! state, once; which states those are is found by name or picked in the section
//! ([`DriveTargets`], `machine_keys.rs`), as are the parameters' key bindings. The forms that
//! edit the machine are in `machine_edit.rs`.

use anim::state_machine::{ParamId, ParamKind, ParamValue, StateId, StateMachine};

use super::machine_keys::{BindingEffect, DriveSlot, DriveTargets, ParamBinding, bindable_keys, drive_state};
use super::shortcuts::{DRIVE_KEY, Gait, chord_label};
use crate::stage::machine::StageMachine;
use crate::stage::machine_edit::MachineKeys;
use crate::stage::rewind::ShownFacts;

/// What the section keeps between frames: the drive keys' and the bound keys' held state and
/// the edit forms' drafts (the picks and bindings themselves are `Tuning::machine_keys`).
#[derive(Debug, Clone, Default)]
pub struct MachinePanel {
    /// What the drive keys asked for last.
    pub drive: DriveKeys,
    /// The bound keys held as of the last frame (`machine_keys::key_bit`).
    pub held_keys: u32,
    /// The edit forms' drafts.
    pub forms: super::machine_edit::EditForms,
    /// The graph window (open or not, its nodes).
    pub graph: super::machine_graph::MachineGraph,
}

pub use super::machine_graph::MachineAction;

/// The states the drive keys request (`None`: the machine has no state for that key).
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
    /// The drive states of `machine`: the user's choices in `targets`, else found by name
    /// ([`super::machine_keys::drive_rank`]). No allocation.
    pub fn of(machine: &StateMachine, targets: &DriveTargets) -> Self {
        Self {
            rest: drive_state(targets, machine, DriveSlot::Rest),
            walk: drive_state(targets, machine, DriveSlot::Walk),
            run: drive_state(targets, machine, DriveSlot::Run),
        }
    }

    /// True when the keys do something: the machine has a rest and a walk state.
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

/// The section: states, the running transition, parameters and their keys, the drive keys of
/// `machine` as `shown` has them (live, or the rewound frame's), and the forms that edit it
/// (`clip_names`: the model's state names per clip); the drive picks and key bindings are edited
/// in `keys` (the tuning's).
pub fn machine_ui(
    ui: &mut egui::Ui,
    machine: &StageMachine,
    shown: &ShownFacts<'_>,
    panel: &mut MachinePanel,
    keys: &mut MachineKeys,
    clip_names: &[String],
) -> Option<MachineAction> {
    if let Some(problem) = machine.problem() {
        if machine.machine().states().is_empty() {
            ui.weak(format!("No state machine: {problem}."));
            return None;
        }
        // An edited machine that no longer fits: the table's machine runs instead.
        ui.weak(format!("Note: {problem}."));
    }
    if let Some(problem) = machine.play_problem() {
        // A blend space or layers that could not be built: that state plays its primary clip.
        ui.weak(format!("{problem}: it plays its first clip."));
    }
    let mut action = None;
    ui.horizontal_wrapped(|ui| {
        ui.toggle_value(&mut panel.graph.open, "Graph…")
            .on_hover_text("The states and transitions as a node graph, in a window (edits there are undo steps too)");
        if ui
            .button("Export to Godot…")
            .on_hover_text("Write the machine as a Godot 4 AnimationNodeStateMachine resource (.tres)")
            .clicked()
        {
            action = Some(MachineAction::ExportGodot);
        }
        if ui
            .button("Export to Bevy…")
            .on_hover_text("Write the machine as a Bevy animation graph (.animgraph.ron) and its transitions beside it")
            .clicked()
        {
            action = Some(MachineAction::ExportBevy);
        }
    });
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
    if let Some(a) = ui.add_enabled_ui(live, |ui| params_ui(ui, machine, shown, &mut keys.bindings)).inner {
        action = Some(a);
    }
    ui.separator();
    keys_ui(ui, machine.machine(), &mut keys.drive);
    ui.separator();
    if let Some(edit) = super::machine_edit::edit_ui(ui, machine.machine(), &mut panel.forms, clip_names) {
        action = Some(MachineAction::Edit(edit));
    }
    action
}

/// The machine's parameters (their values as `shown` has them): floats as sliders, bools as
/// checkboxes, triggers as buttons, each with its key binding.
fn params_ui(
    ui: &mut egui::Ui,
    machine: &StageMachine,
    shown: &ShownFacts<'_>,
    bindings: &mut Vec<ParamBinding>,
) -> Option<MachineAction> {
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
        ui.push_id(("binding", i), |ui| binding_ui(ui, &param.name, param.kind, bindings));
    }
    action
}

/// A parameter's key: none or a key, and for a float the value it holds.
fn binding_ui(ui: &mut egui::Ui, name: &str, kind: ParamKind, bindings: &mut Vec<ParamBinding>) {
    let index = bindings.iter().position(|b| b.param == name);
    let current = index.and_then(|i| egui::Key::from_name(&bindings[i].key));
    ui.horizontal(|ui| {
        let label = current.map_or_else(|| "none".to_owned(), |k| k.name().to_owned());
        let mut chosen = current;
        egui::ComboBox::new("key", "key").selected_text(label).width(60.0).show_ui(ui, |ui| {
            ui.selectable_value(&mut chosen, None, "none");
            for key in bindable_keys() {
                ui.selectable_value(&mut chosen, Some(key), key.name());
            }
        });
        if chosen != current {
            if let Some(i) = index {
                bindings.remove(i);
            }
            if let Some(key) = chosen {
                bindings.retain(|b| b.key != key.name());
                bindings.push(ParamBinding::new(name, key.name(), BindingEffect::for_kind(kind)));
            }
        }
        let Some(binding) = bindings.iter_mut().find(|b| b.param == name) else { return };
        match &mut binding.effect {
            BindingEffect::SetFloat { value } => {
                let label = ui.weak("held:");
                ui.add(egui::DragValue::new(value).speed(0.05)).labelled_by(label.id);
                ui.weak("released: its start");
            }
            BindingEffect::Hold => _ = ui.weak("held: true"),
            BindingEffect::Fire => _ = ui.weak("pressed: fires"),
        }
    });
}

/// Which state each drive key requests, each with a combo box to pick another (or "found by
/// name" again).
fn keys_ui(ui: &mut egui::Ui, machine: &StateMachine, targets: &mut DriveTargets) {
    let walk_key = chord_label(egui::Modifiers::NONE, DRIVE_KEY);
    let run_key = chord_label(egui::Modifiers::SHIFT, DRIVE_KEY);
    let drive = DriveStates::of(machine, targets);
    let name = |id: Option<StateId>| id.and_then(|id| machine.state(id)).map_or("none", |s| s.name.as_str());
    if drive.drivable() {
        let run = if drive.run.is_some() { name(drive.run) } else { name(drive.walk) };
        ui.label(format!(
            "Keys (3D view, not while typing): hold {walk_key}: {}, {run_key}: {run}, release: {}.",
            name(drive.walk),
            name(drive.rest)
        ));
    } else {
        ui.weak(format!(
            "{walk_key} and {run_key} do nothing: no state is named like {} (pick one below).",
            if drive.rest.is_none() { "idle or stand" } else { "walk" }
        ));
    }
    for slot in DriveSlot::ALL {
        let (label, id) = match slot {
            DriveSlot::Walk => (format!("{walk_key} drives"), drive.walk),
            DriveSlot::Run => (format!("{run_key} drives"), drive.run),
            DriveSlot::Rest => ("Release drives".to_owned(), drive.rest),
        };
        let chosen = targets.get(slot).map(str::to_owned);
        let shown = if chosen.is_some() { name(id).to_owned() } else { format!("{} (by name)", name(id)) };
        let mut picked = chosen.clone();
        egui::ComboBox::new(("drive", slot as u8), label).selected_text(shown).show_ui(ui, |ui| {
            ui.selectable_value(&mut picked, None, "found by name");
            for state in machine.states() {
                ui.selectable_value(&mut picked, Some(state.name.clone()), state.name.as_str());
            }
        });
        if picked != chosen {
            targets.set(slot, picked);
        }
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

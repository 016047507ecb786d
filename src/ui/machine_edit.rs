//! The State machine section's edit forms (the graph window, `machine_graph.rs`, makes the
//! same edits and selects what these forms show): the states (entry, a
//! remove button each, a form each for a blend space's points and parameter or a layered
//! state's base and layers — clip, weight, additive, a mask of regions and joints, weights
//! painted per joint —, a rename, a new one from a clip
//! picker or as a blend space or a layered state), the transitions (a collapsible form each:
//! kind, duration, easing, priority, interruption, at end, conditions on parameters; a remove
//! button; a new one from a state or Any to a state), the clip events (clip, name, time; add,
//! remove) and the parameters (add by name and kind, rename, remove). Each change returns one [`MachineEdit`]; the stage applies it as one undo
//! step, or refuses it (the status bar says why) when the machine would not validate.

use anim::state_machine::{
    BlendSpaceMotion, BlendSpacePoint, ClipEvent, Compare, Condition, EventId, Interruption, LayerMotion,
    LayeredMotion, ParamId, ParamKind, StateId, StateMachine, StateMotion, StateTransition, TransitionFrom,
    TransitionId,
};
use anim::{ClipId, Easing, TransitionKind};

use crate::stage::layers::AnatomyRegion;
use crate::stage::machine_edit::MachineEdit;
use crate::stage::machine_play::paint_layer;

/// The forms' drafts, kept between frames.
#[derive(Debug, Clone, Default)]
pub struct EditForms {
    /// The clip of the next new state.
    pub new_state_clip: usize,
    /// The next new transition's source (`None`: any state).
    pub new_from: Option<StateId>,
    /// The next new transition's target.
    pub new_to: StateId,
    /// The next new parameter's name.
    pub new_param: String,
    /// The next new parameter's kind: 0 float, 1 bool, 2 trigger.
    pub new_param_kind: u8,
    /// The state to rename and its new name.
    pub rename_state: (StateId, String),
    /// The parameter to rename and its new name.
    pub rename_param: (ParamId, String),
    /// The next new blend-space or layered state's name.
    pub new_motion_name: String,
    /// What the next new blend-space or layered state plays (`None`: the form is closed).
    pub new_motion: Option<StateMotion>,
    /// The next new clip event: its clip, name and time.
    pub new_event: (usize, String, f32),
    /// The state selected (in the graph or here): its name is highlighted in the forms.
    pub selected_state: Option<StateId>,
    /// A transition whose form opens on the next frame (picked in the graph).
    pub open_transition: Option<TransitionId>,
    /// Open the forms on the next frame (something was picked in the graph).
    pub reveal: bool,
    /// The joints a layer's mask can name (node names, an index for an unnamed node), and the
    /// model generation they were read from.
    joints: (Vec<String>, Option<u64>),
    /// The joint (index into the joints) and weight the layers' **Paint joint** buttons paint.
    pub paint: PaintDraft,
}

/// What a layer's paint buttons paint: a joint of the model and its weight.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PaintDraft {
    /// The joint, an index into the model's joints (node order).
    pub joint: usize,
    /// The weight painted, 0–1.
    pub weight: f32,
}

impl Default for PaintDraft {
    fn default() -> Self {
        Self { joint: 0, weight: 1.0 }
    }
}

impl EditForms {
    /// Select `state` (highlighted in the forms, which open) and make it the next new
    /// transition's target.
    pub fn select_state(&mut self, state: StateId) {
        self.selected_state = Some(state);
        self.new_to = state;
        self.reveal = true;
    }

    /// Read the joints a layer's mask can name from `model` (`generation`: the stage's model
    /// generation; nothing is read again while it stays).
    pub fn set_joints(&mut self, model: &anim::Model, generation: u64) {
        if self.joints.1 == Some(generation) {
            return;
        }
        self.joints.0 = model
            .node_ids()
            .map(|id| model.node(id).and_then(|n| n.name.clone()).unwrap_or_else(|| id.index().to_string()))
            .collect();
        self.joints.1 = Some(generation);
    }

    /// Open `transition`'s form on the next frame (the forms open too).
    pub fn select_transition(&mut self, transition: TransitionId) {
        self.open_transition = Some(transition);
        self.reveal = true;
    }
}

fn id_of<T>(i: usize, make: fn(u32) -> T) -> Option<T> {
    u32::try_from(i).ok().map(make)
}

fn state_name(machine: &StateMachine, id: StateId) -> &str {
    machine.state(id).map_or("?", |s| s.name.as_str())
}

/// The forms; at most one edit per frame.
pub fn edit_ui(
    ui: &mut egui::Ui,
    machine: &StateMachine,
    forms: &mut EditForms,
    clip_names: &[String],
) -> Option<MachineEdit> {
    let mut edit = None;
    let reveal = std::mem::take(&mut forms.reveal).then_some(true);
    egui::CollapsingHeader::new("Edit the machine").id_salt("machine edit").open(reveal).show(ui, |ui| {
        ui.strong("States");
        states_ui(ui, machine, forms, clip_names, &mut edit);
        ui.separator();
        ui.strong("Transitions");
        transitions_ui(ui, machine, forms, clip_names, &mut edit);
        ui.separator();
        ui.strong("Clip events");
        events_ui(ui, machine, forms, clip_names, &mut edit);
        ui.separator();
        ui.strong("Parameters");
        params_ui(ui, machine, forms, &mut edit);
    });
    edit
}

fn states_ui(
    ui: &mut egui::Ui,
    machine: &StateMachine,
    forms: &mut EditForms,
    clip_names: &[String],
    edit: &mut Option<MachineEdit>,
) {
    for (i, state) in machine.states().iter().enumerate() {
        let Some(id) = id_of(i, StateId::new) else { continue };
        ui.horizontal(|ui| {
            let entry = machine.entry() == id;
            if ui.radio(entry, "").on_hover_text("The state the machine starts in").clicked() && !entry {
                *edit = Some(MachineEdit::SetEntry(id));
            }
            let selected = forms.selected_state == Some(id);
            if ui.selectable_label(selected, state.name.as_str()).clicked() {
                forms.selected_state = if selected { None } else { Some(id) };
            }
            if ui.small_button(format!("Remove state {}", state.name)).clicked() {
                *edit = Some(MachineEdit::RemoveState(id));
            }
        });
        if !matches!(state.motion, StateMotion::Clip(_)) {
            let title = format!("{}: {}", state.name, motion_summary(machine, &state.motion, clip_names));
            egui::CollapsingHeader::new(title).id_salt(("motion", i)).show(ui, |ui| {
                let mut draft = state.motion.clone();
                motion_form(ui, machine, (clip_names, &forms.joints.0), &mut forms.paint, &mut draft);
                if draft != state.motion {
                    *edit = Some(MachineEdit::SetMotion(id, draft));
                }
            });
        }
    }
    ui.horizontal(|ui| {
        let (rename, name) = &mut forms.rename_state;
        let shown = state_name(machine, *rename).to_owned();
        egui::ComboBox::new("rename state", "rename").selected_text(shown).show_ui(ui, |ui| {
            for (i, s) in machine.states().iter().enumerate() {
                if let Some(id) = id_of(i, StateId::new) {
                    ui.selectable_value(rename, id, s.name.as_str());
                }
            }
        });
        let label = ui.label("to");
        ui.add(egui::TextEdit::singleline(&mut *name).hint_text("new name").desired_width(90.0)).labelled_by(label.id);
        let new = name.trim();
        if ui.add_enabled(!new.is_empty(), egui::Button::new("Rename state")).clicked() {
            *edit = Some(MachineEdit::RenameState(*rename, new.to_owned()));
            name.clear();
        }
    });
    ui.horizontal(|ui| {
        let shown = clip_names.get(forms.new_state_clip).map_or("no clip", String::as_str);
        egui::ComboBox::new("new state clip", "clip").selected_text(shown).show_ui(ui, |ui| {
            for (i, name) in clip_names.iter().enumerate() {
                ui.selectable_value(&mut forms.new_state_clip, i, name.as_str());
            }
        });
        if ui.button("Add state").clicked() && forms.new_state_clip < clip_names.len() {
            *edit = Some(MachineEdit::AddState { clip: ClipId::from_index(forms.new_state_clip) });
        }
        if ui.button("New blend space").clicked() {
            forms.new_motion = Some(StateMotion::BlendSpace(BlendSpaceMotion {
                name: "blend".to_owned(),
                two_d: false,
                points: Vec::new(),
                x_param: None,
                y_param: None,
                phase_sync: true,
            }));
        }
        if ui.button("New layered state").clicked() {
            let base = ClipId::from_index(forms.new_state_clip);
            forms.new_motion = Some(StateMotion::Layered(LayeredMotion { base, layers: Vec::new() }));
        }
    });
    new_motion_ui(ui, machine, forms, clip_names, edit);
}

/// The form of a new blend-space or layered state, while one is open.
fn new_motion_ui(
    ui: &mut egui::Ui,
    machine: &StateMachine,
    forms: &mut EditForms,
    clip_names: &[String],
    edit: &mut Option<MachineEdit>,
) {
    let Some(motion) = &mut forms.new_motion else { return };
    let mut close = false;
    ui.push_id("new motion", |ui| {
        ui.group(|ui| {
            ui.horizontal(|ui| {
                let label = ui.label("New state's name");
                ui.add(egui::TextEdit::singleline(&mut forms.new_motion_name).desired_width(90.0))
                    .labelled_by(label.id);
            });
            motion_form(ui, machine, (clip_names, &forms.joints.0), &mut forms.paint, motion);
            ui.horizontal(|ui| {
                let what = if matches!(motion, StateMotion::BlendSpace(_)) { "blend-space" } else { "layered" };
                let name = forms.new_motion_name.trim();
                if ui.add_enabled(!name.is_empty(), egui::Button::new(format!("Add {what} state"))).clicked() {
                    let mut motion = motion.clone();
                    if let StateMotion::BlendSpace(space) = &mut motion {
                        name.clone_into(&mut space.name);
                    }
                    *edit = Some(MachineEdit::AddMotionState { name: name.to_owned(), motion });
                    close = true;
                }
                close |= ui.button("Cancel").clicked();
            });
        });
    });
    if close {
        forms.new_motion = None;
        forms.new_motion_name.clear();
    }
}

/// `blend space on speed: Walk @ 1.40, Run @ 3.40` or `Idle + Wave (0.50, upper-body)`.
fn motion_summary(machine: &StateMachine, motion: &StateMotion, clip_names: &[String]) -> String {
    let clip = |c: ClipId| clip_names.get(c.index()).map_or("?", String::as_str);
    match motion {
        StateMotion::Clip(c) => clip(*c).to_owned(),
        StateMotion::BlendSpace(space) => {
            let name = |param: Option<ParamId>| {
                param.and_then(|p| machine.param(p)).map_or("no parameter", |p| p.name.as_str())
            };
            let points: Vec<String> = space
                .points
                .iter()
                .map(|p| {
                    if space.two_d {
                        format!("{} @ ({:.2}, {:.2})", clip(p.clip), p.position.x, p.position.y)
                    } else {
                        format!("{} @ {:.2}", clip(p.clip), p.position.x)
                    }
                })
                .collect();
            let sync = if space.phase_sync { "" } else { ", no phase sync" };
            if space.two_d {
                let (x, y) = (name(space.x_param), name(space.y_param));
                format!("2-D blend space on {x}, {y}: {}{sync}", points.join(", "))
            } else {
                format!("blend space on {}: {}{sync}", name(space.x_param), points.join(", "))
            }
        }
        StateMotion::Layered(layered) => {
            let layers: Vec<String> = layered
                .layers
                .iter()
                .map(|l| {
                    let mask = if l.mask.is_empty() { "whole body".to_owned() } else { l.mask.join("+") };
                    let mode = if l.additive { ", additive" } else { "" };
                    let painted = match l.joint_weights.len() {
                        0 => String::new(),
                        n => format!(", {n} painted"),
                    };
                    format!("{} ({:.2}, {mask}{mode}{painted})", clip(l.clip), l.weight)
                })
                .collect();
            format!(
                "{} + {}",
                clip(layered.base),
                if layers.is_empty() { "no layer".to_owned() } else { layers.join(" + ") }
            )
        }
    }
}

/// A clip picker over `clip_names`.
fn clip_combo(
    ui: &mut egui::Ui,
    id: impl std::hash::Hash + std::fmt::Debug,
    label: &str,
    clip: &mut ClipId,
    clip_names: &[String],
) {
    let shown = clip_names.get(clip.index()).map_or("?", String::as_str);
    egui::ComboBox::new(id, label).selected_text(shown).show_ui(ui, |ui| {
        for (i, name) in clip_names.iter().enumerate() {
            ui.selectable_value(clip, ClipId::from_index(i), name.as_str());
        }
    });
}

/// What a blend-space or layered state plays, edited in `draft`: a blend space's parameters
/// (x, and y in 2-D), its phase sync and its clips at their positions; a layered state's base
/// and its layers (clip, weight, additive, a mask of anatomy regions and joints with their
/// subtrees, weights painted per joint). `names`: the model's state names per clip and the
/// joints a mask can name; `paint`: what the paint buttons paint.
fn motion_form(
    ui: &mut egui::Ui,
    machine: &StateMachine,
    names: (&[String], &[String]),
    paint: &mut PaintDraft,
    draft: &mut StateMotion,
) {
    let (clip_names, joints) = names;
    match draft {
        StateMotion::Clip(clip) => clip_combo(ui, "clip", "clip", clip, clip_names),
        StateMotion::BlendSpace(space) => {
            ui.horizontal(|ui| {
                param_combo(ui, machine, "axis", "driven by", &mut space.x_param);
                ui.checkbox(&mut space.two_d, "2-D").on_hover_text("A second axis (y), its own parameter");
            });
            ui.checkbox(&mut space.phase_sync, "phase sync").on_hover_text(
                "One shared phase, by the feet's contacts (else every clip on the clock, feet drifting out of step)",
            );
            if space.two_d {
                param_combo(ui, machine, "y axis", "y driven by", &mut space.y_param);
            }
            let mut remove = None;
            for (i, point) in space.points.iter_mut().enumerate() {
                ui.push_id(("point", i), |ui| {
                    ui.horizontal(|ui| {
                        clip_combo(ui, "point clip", "at", &mut point.clip, clip_names);
                        let label = ui.label(if space.two_d { "x" } else { "value" });
                        ui.add(egui::DragValue::new(&mut point.position.x).speed(0.05)).labelled_by(label.id);
                        if space.two_d {
                            let label = ui.label("y");
                            ui.add(egui::DragValue::new(&mut point.position.y).speed(0.05)).labelled_by(label.id);
                        }
                        if ui.small_button("Remove point").clicked() {
                            remove = Some(i);
                        }
                    });
                });
            }
            if let Some(i) = remove {
                space.points.remove(i);
            }
            if ui.button("Add point").clicked() {
                let last = space.points.last().map_or(glam::Vec2::new(-1.0, 0.0), |p| p.position);
                let clip = space.points.last().map_or(ClipId::from_index(0), |p| p.clip);
                space.points.push(BlendSpacePoint { clip, position: last + glam::Vec2::X });
            }
        }
        StateMotion::Layered(layered) => {
            clip_combo(ui, "base", "base", &mut layered.base, clip_names);
            let mut remove = None;
            for (i, layer) in layered.layers.iter_mut().enumerate() {
                ui.push_id(("layer", i), |ui| {
                    ui.horizontal(|ui| {
                        clip_combo(ui, "layer clip", "layer", &mut layer.clip, clip_names);
                        let label = ui.label("weight");
                        ui.add(egui::DragValue::new(&mut layer.weight).range(0.0..=1.0).speed(0.01))
                            .labelled_by(label.id);
                        ui.checkbox(&mut layer.additive, "additive");
                        if ui.small_button("Remove layer").clicked() {
                            remove = Some(i);
                        }
                    });
                    mask_list_ui(ui, &mut layer.mask, joints);
                    painted_ui(ui, layer, joints, paint);
                });
            }
            if let Some(i) = remove {
                layered.layers.remove(i);
            }
            if ui.button("Add layer").clicked() {
                let clip = layered.base;
                layered.layers.push(LayerMotion::new(clip, 1.0));
            }
        }
    }
}

/// A float parameter driving a blend space's axis (or none).
fn param_combo(ui: &mut egui::Ui, machine: &StateMachine, id: &str, label: &str, param: &mut Option<ParamId>) {
    let shown = param.and_then(|p| machine.param(p)).map_or("none", |p| p.name.as_str()).to_owned();
    egui::ComboBox::new(id, label).selected_text(shown).show_ui(ui, |ui| {
        ui.selectable_value(param, None, "none");
        for (i, p) in machine.params().iter().enumerate() {
            if matches!(p.kind, ParamKind::Float(_)) {
                ui.selectable_value(param, id_of(i, ParamId::new), p.name.as_str());
            }
        }
    });
}

/// A layer's mask as a list: each entry an anatomy region or a joint and its subtree
/// (`JOINT and below`), a **Remove** button each, and an **add to mask** combo (the regions,
/// then `joints`); an empty list is the whole body. Names as the Layers section's.
fn mask_list_ui(ui: &mut egui::Ui, mask: &mut Vec<String>, joints: &[String]) {
    let shown = |entry: &str| {
        if AnatomyRegion::from_name(entry).is_some() { entry.to_owned() } else { format!("{entry} and below") }
    };
    let mut remove = None;
    ui.horizontal_wrapped(|ui| {
        ui.label(if mask.is_empty() { "mask: whole body" } else { "mask:" });
        for (i, entry) in mask.iter().enumerate() {
            let entry = shown(entry);
            ui.label(entry.as_str());
            if ui.small_button(format!("Remove {entry} from mask")).clicked() {
                remove = Some(i);
            }
        }
    });
    if let Some(i) = remove {
        mask.remove(i);
    }
    let mut picked: Option<&str> = None;
    egui::ComboBox::new("add to mask", "add to mask").selected_text("region or joint…").show_ui(ui, |ui| {
        for region in AnatomyRegion::ALL {
            if ui.selectable_label(false, region.name()).clicked() {
                picked = Some(region.name());
            }
        }
        if !joints.is_empty() {
            ui.separator();
        }
        for joint in joints {
            if ui.selectable_label(false, format!("{joint} and below")).clicked() {
                picked = Some(joint.as_str());
            }
        }
    });
    if let Some(name) = picked
        && !mask.iter().any(|m| m == name)
    {
        mask.push(name.to_owned());
    }
}

/// A layer's weights painted per joint (applied after the mask, in order; over an empty mask
/// the body starts at 1): one row each with a **Remove** button, then a joint, a weight and
/// **Paint joint** / **Paint with subtree**, painted as the Layers section paints.
fn painted_ui(ui: &mut egui::Ui, layer: &mut LayerMotion, joints: &[String], paint: &mut PaintDraft) {
    let mut remove = None;
    for (i, painted) in layer.joint_weights.iter().enumerate() {
        ui.horizontal(|ui| {
            let reach = if painted.subtree { " and below" } else { "" };
            ui.label(format!("painted: {}{reach} at {:.2}", painted.joint, painted.weight));
            if ui.small_button(format!("Remove painted {}{reach}", painted.joint)).clicked() {
                remove = Some(i);
            }
        });
    }
    if let Some(i) = remove {
        layer.joint_weights.remove(i);
    }
    if joints.is_empty() {
        return;
    }
    ui.horizontal_wrapped(|ui| {
        let shown = joints.get(paint.joint).map_or("?", String::as_str);
        egui::ComboBox::new("paint joint", "paint joint").selected_text(shown).show_ui(ui, |ui| {
            for (i, joint) in joints.iter().enumerate() {
                ui.selectable_value(&mut paint.joint, i, joint.as_str());
            }
        });
        let label = ui.label("at");
        ui.add(egui::DragValue::new(&mut paint.weight).range(0.0..=1.0).speed(0.01)).labelled_by(label.id);
        let joint = joints.get(paint.joint);
        if let Some(joint) = joint
            && ui.small_button("Paint joint").on_hover_text("This joint alone").clicked()
        {
            paint_layer(layer, joint.clone(), paint.weight, false);
        }
        if let Some(joint) = joint
            && ui.small_button("Paint with subtree").on_hover_text("This joint and every joint below it").clicked()
        {
            paint_layer(layer, joint.clone(), paint.weight, true);
        }
    });
}

/// The clip events: a row each (clip, name, time, remove), a new one from a clip, a name and
/// a time.
fn events_ui(
    ui: &mut egui::Ui,
    machine: &StateMachine,
    forms: &mut EditForms,
    clip_names: &[String],
    edit: &mut Option<MachineEdit>,
) {
    for (i, event) in machine.events().iter().enumerate() {
        let Some(id) = id_of(i, EventId::new) else { continue };
        ui.push_id(("event", i), |ui| {
            ui.horizontal_wrapped(|ui| {
                let mut draft = event.clone();
                clip_combo(ui, "event clip", "on", &mut draft.clip, clip_names);
                let label = ui.label("named");
                ui.add(egui::TextEdit::singleline(&mut draft.name).desired_width(80.0)).labelled_by(label.id);
                let label = ui.label("at");
                ui.add(egui::DragValue::new(&mut draft.time_secs).range(0.0..=600.0).speed(0.01).suffix(" s"))
                    .labelled_by(label.id);
                if draft != *event {
                    *edit = Some(MachineEdit::SetEvent(id, draft));
                }
                if ui.small_button(format!("Remove event {}", event.name)).clicked() {
                    *edit = Some(MachineEdit::RemoveEvent(id));
                }
            });
        });
    }
    ui.horizontal_wrapped(|ui| {
        let (clip, name, time_secs) = &mut forms.new_event;
        let mut picked = ClipId::from_index(*clip);
        clip_combo(ui, "new event clip", "on", &mut picked, clip_names);
        *clip = picked.index();
        let label = ui.label("new event");
        ui.add(egui::TextEdit::singleline(&mut *name).hint_text("name").desired_width(80.0)).labelled_by(label.id);
        let label = ui.label("at");
        ui.add(egui::DragValue::new(time_secs).range(0.0..=600.0).speed(0.01).suffix(" s")).labelled_by(label.id);
    });
    // The button on its own line: beside the fields it ran past the panel's edge.
    let (clip, name, time_secs) = &mut forms.new_event;
    let trimmed = name.trim();
    if ui.add_enabled(!trimmed.is_empty() && *clip < clip_names.len(), egui::Button::new("Add event")).clicked() {
        *edit = Some(MachineEdit::AddEvent(ClipEvent {
            clip: ClipId::from_index(*clip),
            name: trimmed.to_owned(),
            time_secs: *time_secs,
        }));
        name.clear();
    }
}

fn transitions_ui(
    ui: &mut egui::Ui,
    machine: &StateMachine,
    forms: &mut EditForms,
    clip_names: &[String],
    edit: &mut Option<MachineEdit>,
) {
    for (i, t) in machine.transitions().iter().enumerate() {
        let Some(id) = id_of(i, TransitionId::new) else { continue };
        let title = machine.transition_name(t);
        let open = (forms.open_transition == Some(id)).then_some(true);
        egui::CollapsingHeader::new(format!("{title} ({:.2} s)", t.duration_secs))
            .id_salt(("transition", i))
            .open(open)
            .show(ui, |ui| {
                let mut draft = t.clone();
                transition_form(ui, machine, clip_names, &mut draft);
                if draft != *t {
                    *edit = Some(MachineEdit::SetTransition(id, Box::new(draft)));
                }
                if ui.button(format!("Remove transition {title}")).clicked() {
                    *edit = Some(MachineEdit::RemoveTransition(id));
                }
            });
    }
    forms.open_transition = None;
    ui.horizontal(|ui| {
        let from = forms.new_from.map_or("Any", |id| state_name(machine, id)).to_owned();
        egui::ComboBox::new("new from", "from").selected_text(from).show_ui(ui, |ui| {
            ui.selectable_value(&mut forms.new_from, None, "Any");
            for (i, s) in machine.states().iter().enumerate() {
                ui.selectable_value(&mut forms.new_from, id_of(i, StateId::new), s.name.as_str());
            }
        });
        let to = state_name(machine, forms.new_to).to_owned();
        egui::ComboBox::new("new to", "to").selected_text(to).show_ui(ui, |ui| {
            for (i, s) in machine.states().iter().enumerate() {
                if let Some(id) = id_of(i, StateId::new) {
                    ui.selectable_value(&mut forms.new_to, id, s.name.as_str());
                }
            }
        });
        if ui.button("Add transition").clicked() {
            let from = forms.new_from.map_or(TransitionFrom::Any, TransitionFrom::State);
            *edit = Some(MachineEdit::AddTransition { from, to: forms.new_to });
        }
    });
}

/// One transition's settings and conditions, edited in `draft`.
fn transition_form(ui: &mut egui::Ui, machine: &StateMachine, clip_names: &[String], draft: &mut StateTransition) {
    egui::Grid::new("transition form").num_columns(2).show(ui, |ui| {
        egui::ComboBox::new("kind", "kind").selected_text(draft.kind.name()).show_ui(ui, |ui| {
            for kind in TransitionKind::ALL {
                ui.selectable_value(&mut draft.kind, kind, kind.name());
            }
        });
        ui.end_row();
        ui.label("Duration");
        ui.add(egui::DragValue::new(&mut draft.duration_secs).range(0.0..=10.0).speed(0.01).suffix(" s"));
        ui.end_row();
        egui::ComboBox::new("easing", "easing").selected_text(draft.easing.name()).show_ui(ui, |ui| {
            for easing in Easing::ALL {
                ui.selectable_value(&mut draft.easing, easing, easing.name());
            }
        });
        ui.end_row();
        ui.label("Priority");
        ui.add(egui::DragValue::new(&mut draft.priority).range(0..=99));
        ui.end_row();
        egui::ComboBox::new("interruption", "interrupted by").selected_text(draft.interruption.name()).show_ui(
            ui,
            |ui| {
                for rule in Interruption::ALL {
                    ui.selectable_value(&mut draft.interruption, rule, rule.name());
                }
            },
        );
        ui.end_row();
        ui.label("At end");
        ui.checkbox(&mut draft.at_end, "only when the source's clip ends");
        ui.end_row();
    });
    ui.label(if draft.conditions.is_empty() { "Conditions: none (taken on request)" } else { "Conditions (all):" });
    let mut remove = None;
    for (i, condition) in draft.conditions.iter_mut().enumerate() {
        ui.push_id(("condition", i), |ui| {
            ui.horizontal(|ui| {
                condition_form(ui, machine, clip_names, condition);
                if ui.small_button("Remove condition").clicked() {
                    remove = Some(i);
                }
            });
        });
    }
    if let Some(i) = remove {
        draft.conditions.remove(i);
    }
    // A new condition is on the first parameter, else on the first clip event.
    let first = match machine.params().first() {
        Some(p) => Some(default_condition(ParamId::new(0), p.kind)),
        None => (!machine.events().is_empty()).then_some(Condition::Event(EventId::new(0))),
    };
    if let Some(first) = first
        && ui.button("Add condition").clicked()
    {
        draft.conditions.push(first);
    }
}

/// What a condition is on: a parameter or a clip event.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Subject {
    Param(ParamId),
    Event(EventId),
}

impl Subject {
    fn of(condition: &Condition) -> Option<Self> {
        match condition {
            Condition::Event(event) => Some(Self::Event(*event)),
            other => other.param().map(Self::Param),
        }
    }

    /// As the subject combo shows it: a parameter's name, `event NAME (CLIP)` for an event.
    fn label(self, machine: &StateMachine, clip_names: &[String]) -> String {
        match self {
            Self::Param(p) => machine.param(p).map_or_else(|| "?".to_owned(), |p| p.name.clone()),
            Self::Event(e) => machine.event(e).map_or_else(
                || "?".to_owned(),
                |e| format!("event {} ({})", e.name, clip_names.get(e.clip.index()).map_or("?", String::as_str)),
            ),
        }
    }
}

fn default_condition(param: ParamId, kind: ParamKind) -> Condition {
    match kind {
        ParamKind::Float(_) => Condition::Float { param, compare: Compare::Greater, value: 0.5 },
        ParamKind::Bool(_) => Condition::Bool { param, value: true },
        ParamKind::Trigger => Condition::Trigger(param),
    }
}

/// A condition: what it is on — a parameter or a clip event (changing it resets the condition
/// to fit) — then the comparison and value of a float, the value of a bool.
fn condition_form(ui: &mut egui::Ui, machine: &StateMachine, clip_names: &[String], condition: &mut Condition) {
    let Some(subject) = Subject::of(condition) else { return };
    let mut picked = subject;
    egui::ComboBox::new("subject", "condition on").selected_text(subject.label(machine, clip_names)).show_ui(
        ui,
        |ui| {
            for (i, _) in machine.params().iter().enumerate() {
                if let Some(id) = id_of(i, ParamId::new) {
                    let choice = Subject::Param(id);
                    ui.selectable_value(&mut picked, choice, choice.label(machine, clip_names));
                }
            }
            for (i, _) in machine.events().iter().enumerate() {
                if let Some(id) = id_of(i, EventId::new) {
                    let choice = Subject::Event(id);
                    ui.selectable_value(&mut picked, choice, choice.label(machine, clip_names));
                }
            }
        },
    );
    if picked != subject {
        match picked {
            Subject::Param(id) => {
                if let Some(p) = machine.param(id) {
                    *condition = default_condition(id, p.kind);
                }
            }
            Subject::Event(id) => *condition = Condition::Event(id),
        }
        return;
    }
    match condition {
        Condition::Float { compare, value, .. } => {
            egui::ComboBox::new("compare", "comparison").selected_text(compare.symbol()).width(40.0).show_ui(
                ui,
                |ui| {
                    for c in Compare::ALL {
                        ui.selectable_value(compare, c, c.symbol());
                    }
                },
            );
            ui.add(egui::DragValue::new(value).speed(0.05));
        }
        Condition::Bool { value, .. } => _ = ui.checkbox(value, "is true"),
        Condition::Trigger(_) | Condition::Event(_) => _ = ui.label("fired"),
    }
}

fn params_ui(ui: &mut egui::Ui, machine: &StateMachine, forms: &mut EditForms, edit: &mut Option<MachineEdit>) {
    for (i, p) in machine.params().iter().enumerate() {
        let Some(id) = id_of(i, ParamId::new) else { continue };
        ui.horizontal(|ui| {
            ui.label(format!("{} ({})", p.name, p.kind.name()));
            if ui.small_button(format!("Remove parameter {}", p.name)).clicked() {
                *edit = Some(MachineEdit::RemoveParam(id));
            }
        });
    }
    if !machine.params().is_empty() {
        ui.horizontal_wrapped(|ui| {
            let (rename, name) = &mut forms.rename_param;
            let shown = machine.param(*rename).map_or("?", |p| p.name.as_str()).to_owned();
            egui::ComboBox::new("rename param", "rename parameter").selected_text(shown).show_ui(ui, |ui| {
                for (i, p) in machine.params().iter().enumerate() {
                    if let Some(id) = id_of(i, ParamId::new) {
                        ui.selectable_value(rename, id, p.name.as_str());
                    }
                }
            });
            let label = ui.label("as");
            ui.add(egui::TextEdit::singleline(&mut *name).hint_text("new name").desired_width(90.0))
                .labelled_by(label.id);
            let new = name.trim();
            if ui.add_enabled(!new.is_empty(), egui::Button::new("Rename parameter")).clicked() {
                *edit = Some(MachineEdit::RenameParam(*rename, new.to_owned()));
                name.clear();
            }
        });
    }
    ui.horizontal(|ui| {
        ui.add(egui::TextEdit::singleline(&mut forms.new_param).hint_text("name").desired_width(90.0));
        let kinds = ["float", "bool", "trigger"];
        let shown = kinds.get(usize::from(forms.new_param_kind)).copied().unwrap_or("float");
        egui::ComboBox::new("new param kind", "kind").selected_text(shown).width(70.0).show_ui(ui, |ui| {
            for (i, kind) in (0u8..).zip(kinds) {
                ui.selectable_value(&mut forms.new_param_kind, i, kind);
            }
        });
        let name = forms.new_param.trim();
        if ui.add_enabled(!name.is_empty(), egui::Button::new("Add parameter")).clicked() {
            let kind = match forms.new_param_kind {
                1 => ParamKind::Bool(false),
                2 => ParamKind::Trigger,
                _ => ParamKind::Float(0.0),
            };
            *edit = Some(MachineEdit::AddParam { name: name.to_owned(), kind });
            forms.new_param.clear();
        }
    });
}

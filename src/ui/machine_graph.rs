//! The state machine as a node graph (egui-snarl), in a window the State machine section opens
//! ("Graph…"): one node per state — its name (the active state's header highlighted), what it
//! plays (clip, blend space or layered) and, while a transition runs, its progress on the
//! source and the target — an "Any state" node for the any-state transitions, and one wire per
//! source → target pair of transitions.
//!
//! The graph is a view of the stage's machine: [`MachineGraph`] rebuilds its snarl only when
//! the machine differs from the copy it was built from, so a frame where nothing changed
//! allocates nothing of ours. Each node stands at its state's position in the machine (a
//! machine built from the transition table lays its states on a circle), so the places are
//! saved in the profile with the machine. Edits made in the graph are the section's
//! [`MachineAction`]s — the same [`MachineEdit`]s the forms make, applied by the viewer as one
//! undo step each: connecting two pins adds a request-only transition with the default fade,
//! disconnecting a wire (a right-click on it) removes the last transition of that pair, a
//! node's context menu removes the state, makes it the entry, requests it or adds a state from
//! a clip, and a drag that ends places the states it moved ([`MachineEdit::PlaceStates`]).
//! The snarl itself is never edited by these callbacks: the next frame shows the machine as the
//! edit left it (or as it was, when the edit was refused). A click anywhere on a node — its
//! name or its body — selects the state in the forms (`machine_edit.rs`), and its menu opens
//! one of its transitions there.

use anim::ClipId;
use anim::state_machine::{StateId, StateMachine, StateMotion, TransitionFrom, TransitionId};
use egui_snarl::ui::{PinInfo, SnarlPin, SnarlStyle, SnarlViewer, SnarlWidget};
use egui_snarl::{InPin, InPinId, NodeId, OutPin, OutPinId, Snarl};

use super::machine_edit::EditForms;
use super::machine_keys::ParamChange;
use crate::stage::machine::StageMachine;
use crate::stage::machine_edit::MachineEdit;
use crate::stage::rewind::ShownFacts;
use anim::state_machine::ParamId;

/// What the user did in the section.
#[derive(Debug, Clone, PartialEq)]
pub enum MachineAction {
    /// Go to this state through the machine's own transition.
    Request(StateId),
    /// Set a float parameter.
    SetFloat(ParamId, f32),
    /// Set a bool parameter.
    SetBool(ParamId, bool),
    /// Set a trigger (consumed by the transition that uses it).
    Fire(ParamId),
    /// Edit the machine (one undo step; refused when the result does not validate).
    Edit(MachineEdit),
    /// Ask where to write the machine for Godot 4.
    ExportGodot,
    /// Ask where to write the machine for Bevy.
    ExportBevy,
}

impl From<ParamChange> for MachineAction {
    fn from(change: ParamChange) -> Self {
        match change {
            ParamChange::SetFloat(param, value) => Self::SetFloat(param, value),
            ParamChange::SetBool(param, value) => Self::SetBool(param, value),
            ParamChange::Fire(param) => Self::Fire(param),
        }
    }
}

/// A node dragged less than this from its state's position has not moved, graph pixels.
const MOVE_TOLERANCE_PX: f32 = 0.5;

/// The active state's header fill.
const ACTIVE_HEADER: egui::Color32 = egui::Color32::from_rgb(120, 200, 120);

/// What a node of the graph stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GraphNode {
    /// The source of the any-state transitions (Unity's "Any State").
    Any,
    /// A state of the machine.
    State(StateId),
}

/// The graph window's state: the snarl (nodes, positions, wires) built from the machine, and
/// the machine it was built from.
pub struct MachineGraph {
    /// Whether the window is open.
    pub open: bool,
    snarl: Snarl<GraphNode>,
    /// The machine the snarl shows (`None`: never built).
    built_from: Option<StateMachine>,
    /// The wires the snarl should have (a different count: the snarl was changed behind our
    /// back, e.g. by a Ctrl+drag, and is rebuilt).
    wire_count: usize,
    /// The node of each state, by state index.
    state_nodes: Vec<NodeId>,
    /// The "Any state" node.
    any_node: Option<NodeId>,
    /// The state whose header was drawn highlighted in the last frame (the active one).
    highlighted: Option<StateId>,
    /// The zoom and pan the nodes were last drawn with (their layer to the screen).
    screen_from_nodes: Option<egui::emath::TSTransform>,
}

impl Default for MachineGraph {
    fn default() -> Self {
        Self {
            open: false,
            snarl: Snarl::new(),
            built_from: None,
            wire_count: 0,
            state_nodes: Vec::new(),
            any_node: None,
            highlighted: None,
            screen_from_nodes: None,
        }
    }
}

impl std::fmt::Debug for MachineGraph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MachineGraph")
            .field("open", &self.open)
            .field("nodes", &self.node_count())
            .field("wires", &self.wire_count())
            .finish_non_exhaustive()
    }
}

impl Clone for MachineGraph {
    /// A graph window in the same state (open or not) that rebuilds its nodes when next drawn.
    fn clone(&self) -> Self {
        Self { open: self.open, ..Self::default() }
    }
}

impl MachineGraph {
    /// Nodes in the graph: one per state, plus "Any state" when an any-state transition exists.
    pub fn node_count(&self) -> usize {
        self.snarl.node_ids().count()
    }

    /// Wires in the graph: one per (source, target) pair that has transitions.
    pub fn wire_count(&self) -> usize {
        self.snarl.wires().count()
    }

    /// The state highlighted as active when the graph was last drawn.
    pub fn highlighted(&self) -> Option<StateId> {
        self.highlighted
    }

    /// `rect` of the nodes' layer (a node's widget, as accessibility reports it) on the screen,
    /// zoomed and panned as the graph was last drawn.
    pub fn on_screen(&self, rect: egui::Rect) -> egui::Rect {
        self.screen_from_nodes.map_or(rect, |t| t * rect)
    }

    /// Where state `state`'s node stands, graph pixels.
    pub fn node_position(&self, state: StateId) -> Option<glam::Vec2> {
        let pos = self.snarl.get_node_info(*self.state_nodes.get(state.index())?)?.pos;
        Some(glam::Vec2::new(pos.x, pos.y))
    }

    /// The graph's pin where transitions leave `from` (`None`: no such state, or no Any node).
    pub fn out_pin(&self, from: TransitionFrom) -> Option<OutPinId> {
        out_pin_of(self.any_node, &self.state_nodes, from)
    }

    /// The graph's pin where transitions enter `to`.
    pub fn in_pin(&self, to: StateId) -> Option<InPinId> {
        self.state_nodes.get(to.index()).map(|&node| InPinId { node, input: 0 })
    }

    /// What connecting `from` to `to` in the graph does (what dragging a wire between them
    /// returns): a transition between the two nodes' states with the default fade.
    pub fn connect_action(&self, from: OutPinId, to: InPinId) -> Option<MachineAction> {
        connect_edit(&self.snarl, from, to).map(MachineAction::Edit)
    }

    /// What disconnecting the wire `from` → `to` does: remove the last transition of that pair.
    pub fn disconnect_action(&self, machine: &StateMachine, from: OutPinId, to: InPinId) -> Option<MachineAction> {
        disconnect_edit(&self.snarl, machine, from, to).map(MachineAction::Edit)
    }

    /// Rebuild the snarl when `machine` is not the one it shows (or its wires were changed).
    /// Returns true when it rebuilt.
    pub fn sync(&mut self, machine: &StateMachine) -> bool {
        if self.built_from.as_ref() == Some(machine) && self.wire_count == self.snarl.wires().count() {
            return false;
        }
        self.rebuild(machine);
        true
    }

    fn rebuild(&mut self, machine: &StateMachine) {
        // The states stand where the machine places them; "Any state" where the user left it,
        // else amid the states.
        let any_at = self.any_node.and_then(|n| self.snarl.get_node_info(n)).map(|n| n.pos);
        let states = machine.states();
        let count = states.len().max(1) as f32;
        let centre = states.iter().fold(glam::Vec2::ZERO, |sum, s| sum + s.position) / count;
        let mut snarl = Snarl::new();
        let has_any = machine.transitions().iter().any(|t| t.from == TransitionFrom::Any);
        self.any_node =
            has_any.then(|| snarl.insert_node(any_at.unwrap_or(egui::pos2(centre.x, centre.y)), GraphNode::Any));
        self.state_nodes.clear();
        for (i, state) in states.iter().enumerate() {
            let Ok(index) = u32::try_from(i) else { break };
            let at = egui::pos2(state.position.x, state.position.y);
            self.state_nodes.push(snarl.insert_node(at, GraphNode::State(StateId::new(index))));
        }
        for t in machine.transitions() {
            if let (Some(from), Some(to)) = (out_pin_of(self.any_node, &self.state_nodes, t.from), self.in_pin(t.to)) {
                snarl.connect(from, to);
            }
        }
        self.wire_count = snarl.wires().count();
        self.snarl = snarl;
        self.built_from = Some(machine.clone());
    }

    /// The states whose nodes stand elsewhere than the machine places them (a drag), with
    /// where they stand.
    fn moved_states(&self, machine: &StateMachine) -> Vec<(StateId, glam::Vec2)> {
        self.state_nodes
            .iter()
            .enumerate()
            .filter_map(|(i, &node)| {
                let id = StateId::new(u32::try_from(i).ok()?);
                let pos = self.snarl.get_node_info(node)?.pos;
                let at = glam::Vec2::new(pos.x, pos.y);
                (at.distance(machine.state(id)?.position) > MOVE_TOLERANCE_PX).then_some((id, at))
            })
            .collect()
    }
}

fn out_pin_of(any: Option<NodeId>, states: &[NodeId], from: TransitionFrom) -> Option<OutPinId> {
    let node = match from {
        TransitionFrom::Any => any?,
        TransitionFrom::State(id) => *states.get(id.index())?,
    };
    Some(OutPinId { node, output: 0 })
}

fn state_of(snarl: &Snarl<GraphNode>, node: NodeId) -> Option<StateId> {
    match snarl.get_node(node)? {
        GraphNode::State(id) => Some(*id),
        GraphNode::Any => None,
    }
}

fn source_of(snarl: &Snarl<GraphNode>, node: NodeId) -> Option<TransitionFrom> {
    Some(match *snarl.get_node(node)? {
        GraphNode::Any => TransitionFrom::Any,
        GraphNode::State(id) => TransitionFrom::State(id),
    })
}

/// A wire dragged from `from` to `to`: a request-only transition with the default fade.
fn connect_edit(snarl: &Snarl<GraphNode>, from: OutPinId, to: InPinId) -> Option<MachineEdit> {
    Some(MachineEdit::AddTransition { from: source_of(snarl, from.node)?, to: state_of(snarl, to.node)? })
}

/// A wire removed: the last transition from `from`'s node to `to`'s.
fn disconnect_edit(
    snarl: &Snarl<GraphNode>,
    machine: &StateMachine,
    from: OutPinId,
    to: InPinId,
) -> Option<MachineEdit> {
    let (from, to) = (source_of(snarl, from.node)?, state_of(snarl, to.node)?);
    let index = machine.transitions().iter().rposition(|t| t.from == from && t.to == to)?;
    Some(MachineEdit::RemoveTransition(TransitionId::new(u32::try_from(index).ok()?)))
}

/// The graph window, when open: the machine as `shown` has it (live or rewound; edits only when
/// live). Returns what the user did.
pub fn graph_window(
    ctx: &egui::Context,
    machine: &StageMachine,
    shown: &ShownFacts<'_>,
    graph: &mut MachineGraph,
    forms: &mut EditForms,
    clip_names: &[String],
) -> Option<MachineAction> {
    if !graph.open {
        return None;
    }
    let mut open = true;
    let mut action = None;
    egui::Window::new("State machine graph")
        .open(&mut open)
        .default_size([720.0, 480.0])
        .min_size([320.0, 240.0])
        .resizable(true)
        .show(ctx, |ui| action = graph_ui(ui, machine, shown, graph, forms, clip_names));
    graph.open = open;
    action
}

/// The graph itself, filling `ui`.
pub fn graph_ui(
    ui: &mut egui::Ui,
    machine: &StageMachine,
    shown: &ShownFacts<'_>,
    graph: &mut MachineGraph,
    forms: &mut EditForms,
    clip_names: &[String],
) -> Option<MachineAction> {
    ui.weak("Drag from a state's right pin to another's left pin: a transition. Right-click: menus.");
    graph.sync(machine.machine());
    let mut viewer = GraphViewer {
        machine: machine.machine(),
        shown,
        live: !shown.is_rewound(),
        clip_names,
        forms,
        built_from: graph.built_from.as_ref(),
        action: None,
        highlighted: None,
    };
    let style = SnarlStyle { centering: Some(true), collapsible: Some(false), ..SnarlStyle::new() };
    let snarl_id = ui.id().with("machine graph");
    // Labels in the nodes do not take clicks or drags (text selection): a node takes them
    // wherever it is pressed, to select its state or move it.
    ui.style_mut().interaction.selectable_labels = false;
    SnarlWidget::new().id(snarl_id).style(style).min_size(egui::vec2(300.0, 300.0)).show(
        &mut graph.snarl,
        &mut viewer,
        ui,
    );
    let editable = viewer.editable();
    let (mut action, highlighted) = (viewer.action, viewer.highlighted);
    graph.highlighted = highlighted;
    // A click anywhere on a state's node (its header or body) selects it in the forms.
    for (i, &node) in graph.state_nodes.iter().enumerate() {
        let Ok(index) = u32::try_from(i) else { break };
        let response = ui.ctx().read_response(node_frame_id(snarl_id, node));
        if i == 0 {
            graph.screen_from_nodes = response.as_ref().and_then(|r| ui.ctx().layer_transform_to_global(r.layer_id));
        }
        if response.is_some_and(|r| r.clicked()) {
            forms.select_state(StateId::new(index));
        }
    }
    // A drag ended: the states it moved are placed there (one edit, one undo step); while
    // rewound the nodes go back.
    if action.is_none() && !ui.input(|i| i.pointer.any_down()) {
        let moved = graph.moved_states(machine.machine());
        if !moved.is_empty() {
            if editable {
                action = Some(MachineAction::Edit(MachineEdit::PlaceStates(moved)));
            } else {
                graph.rebuild(machine.machine());
            }
        }
    }
    action
}

/// The id egui-snarl gives the frame of `node` in the snarl widget `snarl_id` (the response
/// that takes clicks and drags anywhere on the node).
fn node_frame_id(snarl_id: egui::Id, node: NodeId) -> egui::Id {
    snarl_id.with(("snarl-node", node)).with("frame")
}

/// Draws the nodes and turns the snarl's callbacks into actions.
struct GraphViewer<'a, 'f> {
    machine: &'a StateMachine,
    shown: &'a ShownFacts<'a>,
    live: bool,
    clip_names: &'a [String],
    forms: &'f mut EditForms,
    built_from: Option<&'a StateMachine>,
    action: Option<MachineAction>,
    highlighted: Option<StateId>,
}

impl GraphViewer<'_, '_> {
    /// True when the graph shows the live machine it was built from (edits allowed).
    fn editable(&self) -> bool {
        self.live && self.built_from == Some(self.machine)
    }

    /// An edit, when the graph shows the live machine it was built from.
    fn edit(&mut self, edit: MachineEdit) {
        if self.editable() {
            self.action = Some(MachineAction::Edit(edit));
        }
    }

    /// "Add state from clip" entries.
    fn add_state_menu(&mut self, ui: &mut egui::Ui) {
        ui.menu_button("Add state from clip", |ui| {
            for (i, name) in self.clip_names.iter().enumerate() {
                if ui.button(name.as_str()).clicked() {
                    self.edit(MachineEdit::AddState { clip: ClipId::from_index(i) });
                }
            }
        });
    }

    /// The running transition's progress, on its source and its target.
    fn progress_ui(&self, ui: &mut egui::Ui, id: StateId) {
        let Some(t) = self.shown.transition else { return };
        let role = if t.from == id {
            "leaving"
        } else if t.to == id {
            "entering"
        } else {
            return;
        };
        ui.add(
            egui::ProgressBar::new(t.progress())
                .text(format!("{role} {:.2} / {:.2} s", t.elapsed_secs, t.duration_secs))
                .desired_width(150.0),
        );
    }
}

impl SnarlViewer<GraphNode> for GraphViewer<'_, '_> {
    fn title(&mut self, node: &GraphNode) -> String {
        match node {
            GraphNode::Any => "Any state".to_owned(),
            GraphNode::State(id) => self.machine.state(*id).map_or_else(String::new, |s| s.name.clone()),
        }
    }

    fn header_frame(
        &mut self,
        default: egui::Frame,
        node: NodeId,
        _inputs: &[InPin],
        _outputs: &[OutPin],
        snarl: &Snarl<GraphNode>,
    ) -> egui::Frame {
        let state = state_of(snarl, node);
        if state.is_some() && state == self.shown.state {
            self.highlighted = state;
            return default.fill(ACTIVE_HEADER);
        }
        default
    }

    fn show_header(
        &mut self,
        node: NodeId,
        _inputs: &[InPin],
        _outputs: &[OutPin],
        ui: &mut egui::Ui,
        snarl: &mut Snarl<GraphNode>,
    ) {
        match state_of(snarl, node) {
            None => _ = ui.strong("Any state"),
            Some(id) => {
                let name = self.machine.state(id).map_or("?", |s| s.name.as_str());
                let selected = self.forms.selected_state == Some(id);
                let active = self.shown.state == Some(id);
                let text = egui::RichText::new(name).strong();
                let text = if active { text.color(egui::Color32::BLACK) } else { text };
                if ui.add(egui::Button::selectable(selected, text)).on_hover_text("Select in the forms").clicked() {
                    self.forms.select_state(id);
                }
            }
        }
    }

    fn inputs(&mut self, node: &GraphNode) -> usize {
        usize::from(matches!(node, GraphNode::State(_)))
    }

    fn outputs(&mut self, _node: &GraphNode) -> usize {
        1
    }

    fn show_input(
        &mut self,
        _pin: &InPin,
        ui: &mut egui::Ui,
        _snarl: &mut Snarl<GraphNode>,
    ) -> impl SnarlPin + 'static {
        ui.weak("in");
        PinInfo::circle()
    }

    fn show_output(
        &mut self,
        _pin: &OutPin,
        ui: &mut egui::Ui,
        _snarl: &mut Snarl<GraphNode>,
    ) -> impl SnarlPin + 'static {
        ui.weak("out");
        PinInfo::circle()
    }

    fn has_body(&mut self, _node: &GraphNode) -> bool {
        true
    }

    fn show_body(
        &mut self,
        node: NodeId,
        _inputs: &[InPin],
        _outputs: &[OutPin],
        ui: &mut egui::Ui,
        snarl: &mut Snarl<GraphNode>,
    ) {
        let Some(id) = state_of(snarl, node) else {
            ui.weak("from every state");
            return;
        };
        let Some(state) = self.machine.state(id) else { return };
        ui.vertical(|ui| {
            let clip = |c: ClipId| self.clip_names.get(c.index()).map_or("?", String::as_str);
            match &state.motion {
                StateMotion::Clip(c) => _ = ui.label(format!("clip {}", clip(*c))),
                StateMotion::BlendSpace(space) => {
                    _ = ui.label(format!("blend space {} ({} clips)", space.name, space.points.len()));
                }
                StateMotion::Layered(layered) => {
                    _ = ui.label(format!("layered: {} + {} layers", clip(layered.base), layered.layers.len()));
                }
            }
            if self.machine.entry() == id {
                ui.weak("entry");
            }
            if self.shown.state == Some(id) {
                ui.label(format!("active, {:.2} s", self.shown.state_secs));
            }
            self.progress_ui(ui, id);
        });
    }

    fn connect(&mut self, from: &OutPin, to: &InPin, snarl: &mut Snarl<GraphNode>) {
        if let Some(edit) = connect_edit(snarl, from.id, to.id) {
            self.edit(edit);
        }
    }

    fn disconnect(&mut self, from: &OutPin, to: &InPin, snarl: &mut Snarl<GraphNode>) {
        if let Some(edit) = disconnect_edit(snarl, self.machine, from.id, to.id) {
            self.edit(edit);
        }
    }

    fn drop_inputs(&mut self, _pin: &InPin, _snarl: &mut Snarl<GraphNode>) {}

    fn drop_outputs(&mut self, _pin: &OutPin, _snarl: &mut Snarl<GraphNode>) {}

    fn has_graph_menu(&mut self, _pos: egui::Pos2, _snarl: &mut Snarl<GraphNode>) -> bool {
        self.live
    }

    fn show_graph_menu(&mut self, _pos: egui::Pos2, ui: &mut egui::Ui, _snarl: &mut Snarl<GraphNode>) {
        self.add_state_menu(ui);
    }

    fn has_node_menu(&mut self, node: &GraphNode) -> bool {
        self.live && matches!(node, GraphNode::State(_))
    }

    fn show_node_menu(
        &mut self,
        node: NodeId,
        _inputs: &[InPin],
        _outputs: &[OutPin],
        ui: &mut egui::Ui,
        snarl: &mut Snarl<GraphNode>,
    ) {
        let Some(id) = state_of(snarl, node) else { return };
        let machine = self.machine;
        let name = machine.state(id).map_or("?", |s| s.name.as_str());
        if ui.button(format!("Go to {name}")).clicked() {
            self.action = Some(MachineAction::Request(id));
        }
        if ui.add_enabled(self.machine.entry() != id, egui::Button::new("Set as entry")).clicked() {
            self.edit(MachineEdit::SetEntry(id));
        }
        if ui.button(format!("Remove state {name}")).clicked() {
            self.edit(MachineEdit::RemoveState(id));
        }
        self.add_state_menu(ui);
        let outgoing = machine.transitions().iter().enumerate().filter(|(_, t)| t.from == TransitionFrom::State(id));
        let mut any = false;
        for (i, t) in outgoing {
            let Ok(index) = u32::try_from(i) else { break };
            if !any {
                ui.separator();
                any = true;
            }
            let to = machine.state(t.to).map_or("?", |s| s.name.as_str());
            if ui.button(format!("Edit transition to {to} ({:.2} s)", t.duration_secs)).clicked() {
                self.forms.select_transition(TransitionId::new(index));
            }
        }
    }
}

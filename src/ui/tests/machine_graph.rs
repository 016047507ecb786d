//! The state machine's graph window: a node per state plus "Any state", a wire per source →
//! target pair; a wire connected in the graph is a transition the machine then takes, one undo
//! step that Ctrl+Z takes back; the active state's header is the highlighted one; a node's name
//! selects the state in the forms.

use anim::state_machine::{StateId, TransitionFrom, TransitionId};
use egui::Key;
use egui_kittest::kittest::Queryable as _;

use super::{shared_model, viewer, whole};
use crate::ui::{ModelSource, Viewer};

fn state(viewer: &Viewer, name: &str) -> StateId {
    viewer.stage.machine().machine().find_state(name).unwrap_or_else(|| panic!("no state {name}"))
}

/// A harness on `viewer` with the graph window open, drawn once.
fn with_graph(mut viewer: Viewer) -> egui_kittest::Harness<'static, Viewer> {
    viewer.machine_panel.graph.open = true;
    let mut harness = whole(viewer, [1280.0, 900.0]);
    harness.run();
    harness
}

#[test]
fn the_built_in_machine_is_nine_nodes_and_eight_wires_with_the_entry_highlighted() {
    let harness = with_graph(viewer());
    let v = harness.state();
    let machine = v.stage.machine().machine();
    assert_eq!(machine.states().len(), 8);
    assert_eq!(machine.transitions().len(), 8, "an any-state edge into each clip");
    let graph = &v.machine_panel.graph;
    assert_eq!(graph.node_count(), 9, "eight states and Any");
    assert_eq!(graph.wire_count(), 8, "Any -> each state");
    assert_eq!(graph.highlighted(), Some(machine.entry()), "the active state is the entry");
    harness.get_by_label("Any state");
    harness.get_by_label("from every state");
}

#[test]
fn a_wire_connected_in_the_graph_is_a_transition_the_machine_takes_and_ctrl_z_removes() {
    let mut harness = with_graph(viewer());
    let (idle, walk) = (state(harness.state(), "Idle"), state(harness.state(), "Walk"));
    harness.state_mut().request_state(idle);
    harness.state_mut().step(1.0);
    harness.run();
    assert_eq!(harness.state().machine_panel.graph.highlighted(), Some(idle));
    let steps = harness.state().stage.history.undo_steps();
    let graph = &harness.state().machine_panel.graph;
    let (from, to) = (graph.out_pin(TransitionFrom::State(idle)).expect("Idle"), graph.in_pin(walk).expect("Walk"));
    let action = graph.connect_action(from, to).expect("two states");
    harness.state_mut().apply_machine_action(action);
    harness.run();
    let v = harness.state();
    let added = v.stage.machine().machine().transitions().last().expect("a transition").clone();
    assert_eq!((added.from, added.to), (TransitionFrom::State(idle), walk));
    assert!((added.duration_secs - crate::stage::tuning::DEFAULT_FADE_SECS).abs() < 1e-6);
    assert_eq!(v.stage.machine().machine().transitions().len(), 9);
    assert_eq!(v.machine_panel.graph.wire_count(), 9, "the new wire Idle -> Walk");
    assert_eq!(v.machine_panel.graph.node_count(), 9);
    assert_eq!(v.stage.history.undo_steps(), steps + 1, "one undo step");
    // The machine takes the new edge (a state's own edge before the any-state one).
    harness.state_mut().request_state(walk);
    let t = harness.state().stage.machine().output().transition.expect("Idle -> Walk running");
    assert_eq!((t.transition, t.from, t.to), (Some(TransitionId::new(8)), idle, walk));
    harness.state_mut().step(0.1);
    harness.run();
    assert_eq!(harness.state().machine_panel.graph.highlighted(), Some(walk), "Walk is active now");
    let t = harness.state().stage.machine().output().transition.expect("still running");
    harness.get_by_label(&format!("entering {:.2} / {:.2} s", t.elapsed_secs, t.duration_secs));
    harness.get_by_label(&format!("leaving {:.2} / {:.2} s", t.elapsed_secs, t.duration_secs));
    // Ctrl+Z takes the graph edit back: the wire goes.
    harness.key_press_modifiers(egui::Modifiers::COMMAND, Key::Z);
    harness.run();
    let v = harness.state();
    assert_eq!(v.stage.machine().machine().transitions().len(), 8);
    assert_eq!(v.machine_panel.graph.wire_count(), 8);
    assert!(v.stage.machine().is_from_table(), "back to the table's machine");
}

#[test]
fn disconnecting_a_wire_removes_its_transition() {
    let mut harness = with_graph(viewer());
    let run = state(harness.state(), "Run");
    let graph = &harness.state().machine_panel.graph;
    let (from, to) = (graph.out_pin(TransitionFrom::Any).expect("Any"), graph.in_pin(run).expect("Run"));
    let action = graph.disconnect_action(harness.state().stage.machine().machine(), from, to).expect("Any -> Run");
    harness.state_mut().apply_machine_action(action);
    harness.run();
    let v = harness.state();
    assert_eq!(v.stage.machine().machine().transitions().len(), 7);
    assert!(v.stage.machine().machine().transitions().iter().all(|t| t.to != run));
    assert_eq!((v.machine_panel.graph.wire_count(), v.machine_panel.graph.node_count()), (7, 9));
}

#[test]
fn robot_expressive_has_a_node_per_state() {
    let Some(path) = shared_model("RobotExpressive/RobotExpressive.glb") else { return };
    let model = anim::import::load_path(&path).expect("RobotExpressive");
    let harness = with_graph(Viewer::new(model, ModelSource::file(&path)));
    let v = harness.state();
    let states = v.stage.machine().machine().states().len();
    assert_eq!(states, 14, "one state per clip");
    assert_eq!(v.machine_panel.graph.node_count(), states + 1);
    assert_eq!(v.machine_panel.graph.wire_count(), states);
    harness.get_by_label("clip Dance");
}

/// A real click (pointer moved there, pressed, released, a frame each) at `pos`.
fn click_at(harness: &mut egui_kittest::Harness<'static, Viewer>, pos: egui::Pos2) {
    harness.hover_at(pos);
    harness.run();
    harness.drag_at(pos);
    harness.run();
    harness.drop_at(pos);
    harness.run();
}

/// `rect` of a node's widget on the screen, the graph's zoom and pan applied.
fn screen(harness: &egui_kittest::Harness<'static, Viewer>, rect: egui::Rect) -> egui::Rect {
    harness.state().machine_panel.graph.on_screen(rect)
}

/// The rect (in the nodes' layer) of state `name`'s header (its name, just above its body's "clip NAME").
fn header_rect(harness: &egui_kittest::Harness<'static, Viewer>, name: &str) -> egui::Rect {
    let body = harness.get_by_label(&format!("clip {name}")).rect();
    harness
        .query_all_by_label(name)
        .map(|n| n.rect())
        .find(|r| {
            r.max.y <= body.min.y + 1.0 && r.min.y > body.min.y - 60.0 && (r.center().x - body.center().x).abs() < 150.0
        })
        .unwrap_or_else(|| panic!("no header {name} above {body:?}"))
}

#[test]
fn a_click_on_a_nodes_name_or_body_selects_its_state_in_the_forms() {
    let mut harness = with_graph(viewer());
    let (walk, run) = (state(harness.state(), "Walk"), state(harness.state(), "Run"));
    assert_eq!(harness.state().machine_panel.forms.selected_state, None);
    let body = screen(&harness, harness.get_by_label("clip Run").rect()).center();
    click_at(&mut harness, body);
    assert_eq!(harness.state().machine_panel.forms.selected_state, Some(run), "a click on Run's body");
    let name = screen(&harness, header_rect(&harness, "Walk")).center();
    click_at(&mut harness, name);
    assert_eq!(harness.state().machine_panel.forms.selected_state, Some(walk), "a click on Walk's name");
    assert_eq!(harness.state().stage.machine().machine().states().len(), 8, "a click edits nothing");
}

#[test]
fn a_dragged_node_is_placed_in_the_machine_as_one_undo_step_saved_and_restored() {
    let mut harness = with_graph(viewer());
    let run = state(harness.state(), "Run");
    let before = harness.state().stage.machine().machine().state(run).expect("Run").position;
    let steps = harness.state().stage.history.undo_steps();
    // Drag Run's node by its body 80 px right and 50 px down, over several frames.
    let start = screen(&harness, harness.get_by_label("clip Run").rect()).center();
    harness.hover_at(start);
    harness.run();
    harness.drag_at(start);
    harness.step();
    // A drag repaints every frame: one step per pointer move.
    for i in 1..=5 {
        harness.hover_at(start + egui::vec2(16.0, 10.0) * i as f32);
        harness.step();
    }
    harness.drop_at(start + egui::vec2(80.0, 50.0));
    harness.run_steps(3);
    let v = harness.state();
    let after = v.stage.machine().machine().state(run).expect("Run").position;
    let moved = after - before;
    assert!(moved.x > 20.0 && moved.y > 10.0, "Run moved right and down: {moved}");
    assert!((moved.y / moved.x - 50.0 / 80.0).abs() < 0.05, "along the drag: {moved}");
    assert_eq!(v.stage.history.undo_steps(), steps + 1, "the drag is one undo step");
    assert_eq!(v.machine_panel.forms.selected_state, None, "a drag selects nothing");
    // Saved in the profile by state name, and read back.
    let model = v.stage.model();
    let identity = crate::profile::ModelIdentity::of(model, None);
    let profile = crate::profile::TuningProfile::from_tuning(&v.stage.tuning, model, &identity, "test");
    let json = serde_json::to_string(&profile).expect("json");
    let read: crate::profile::TuningProfile = serde_json::from_str(&json).expect("read");
    let (tuning, _) = read.to_tuning(model);
    let restored = tuning.machine.as_ref().and_then(|m| m.find_state("Run").and_then(|id| m.state(id)));
    assert_eq!(restored.map(|s| s.position), Some(after), "the profile keeps Run's place");
    // Reopened: a fresh viewer with that tuning draws Run there.
    let mut reopened = viewer();
    reopened.stage.set_tuning(tuning);
    let reopened = with_graph(reopened);
    assert_eq!(reopened.state().stage.machine().machine().state(run).map(|s| s.position), Some(after));
    assert!(reopened.state().machine_panel.graph.node_position(run).is_some_and(|p| p == after));
    // Ctrl+Z puts it back.
    harness.key_press_modifiers(egui::Modifiers::COMMAND, Key::Z);
    harness.run();
    let v = harness.state();
    assert_eq!(v.stage.machine().machine().state(run).map(|s| s.position), Some(before));
    assert_eq!(v.machine_panel.graph.node_position(run), Some(before), "the node goes back too");
}

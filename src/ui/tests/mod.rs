//! Viewer tests: `egui_kittest` drives the real [`Viewer`] through its panels (no window, no
//! GPU: the 3D view shows its placeholder). `panels` covers each panel; `defects` holds one test
//! per defect of issue #13 (each failed before its fix); `features` the undo, tooltips, table
//! and compare additions.

use egui_kittest::Harness;

use super::{ModelSource, Viewer};

mod artist;
mod defects;
mod features;
mod layers;
mod machine;
mod machine_edit;
mod machine_graph;
mod panels;
mod rewind;
mod transitions;
mod working_day;

/// The built-in character in a viewer without profiles.
fn viewer() -> Viewer {
    Viewer::new(built_in_model(), ModelSource::built_in())
}

/// The built-in character.
fn built_in_model() -> anim::Model {
    anim::import::load_slice(crate::mannequin::DEFAULT_MODEL_GLB, None).expect("built-in model")
}

/// A harness showing the whole viewer at `size`.
fn whole(viewer: Viewer, size: [f32; 2]) -> Harness<'static, Viewer> {
    Harness::builder().with_size(size).build_ui_state(|ui, v: &mut Viewer| v.ui(ui), viewer)
}

/// The clip called `name`.
fn clip(viewer: &Viewer, name: &str) -> anim::ClipId {
    viewer.stage.model().find_clip(name).unwrap_or_else(|| panic!("no clip {name}"))
}

/// The node called `name`.
fn node(viewer: &Viewer, name: &str) -> anim::NodeId {
    let model = viewer.stage.model();
    model
        .node_ids()
        .find(|&n| model.node(n).and_then(|n| n.name.as_deref()) == Some(name))
        .unwrap_or_else(|| panic!("no node {name}"))
}

/// A shared test model, when this checkout has them (`../shared/models`); under CI a missing
/// folder fails instead of skipping.
fn shared_model(relative: &str) -> Option<std::path::PathBuf> {
    devtools::ci::shared_model_path(relative)
}

/// A fresh scratch configuration folder (profiles inside), removed first.
fn config_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("animtune-ui-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir.join("profiles")
}

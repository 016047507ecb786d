//! The character's state machine written for engines, the one place both the command line
//! (`animtune graph --export-godot FILE --export-bevy FILE`) and the viewer (the State machine
//! section's **Export to Godot…** and **Export to Bevy…**) write the files: Godot 4's
//! `AnimationNodeStateMachine` resource (the core's `export_godot_with_bones`, each clip named as
//! Godot's glTF importer names the animation, a layered state's masks as bone filters) and Bevy's `SerializedAnimationGraph` with its transitions
//! sidecar ([`super::bevy_export::export_bevy_masked`], the layers' masks as mask groups).

use std::path::{Path, PathBuf};

use anim::Model;
use anim::state_machine::{
    GodotBone, GodotError, StateId, StateMachine, StateMotion, export_godot_with_bones, godot_bone_paths,
};
use thiserror::Error;

use super::Stage;
use super::bevy_export::{BevyExportError, export_bevy_masked};

/// The `.glb` a Bevy graph of the built-in character names (the file `cargo xtask` writes).
const BUILT_IN_GLB: &str = "mannequin.glb";

/// Why an engine export was not written.
#[derive(Debug, Error)]
pub enum EngineExportError {
    /// The machine cannot be written for Godot.
    #[error("cannot export to Godot: {0}")]
    Godot(#[from] GodotError),
    /// The machine cannot be written for Bevy.
    #[error("cannot export to Bevy: {0}")]
    Bevy(#[from] BevyExportError),
    /// A file could not be written.
    #[error("cannot write {what} to {}: {source}", path.display())]
    Write {
        /// What the file holds.
        what: &'static str,
        /// Where.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

impl Stage {
    /// Write the machine on stage as a Godot 4 `.tres` to `path`: a layered state's masks as
    /// its mix nodes' bone filters, resolved on the model as the stage plays them.
    pub fn export_godot(&self, path: &Path) -> Result<(), EngineExportError> {
        let names = self.clip_names();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let paths = godot_bone_paths(self.model());
        let machine = self.machine().machine();
        let bones = |state, layer| godot_layer_bones(self.model(), &paths, machine, state, layer);
        let text = export_godot_with_bones(machine, &names, &bones)?;
        write(path, &text, "the Godot export")
    }

    /// Write the machine on stage as a Bevy `.animgraph.ron` to `path` and its transitions
    /// sidecar beside it ([`bevy_sidecar`]); returns the sidecar's path. The graph names the
    /// model's file (its name only: the `.glb` goes beside the graph in the game's assets).
    pub fn export_bevy(&self, path: &Path) -> Result<PathBuf, EngineExportError> {
        let gltf = self
            .source()
            .path
            .as_deref()
            .and_then(Path::file_name)
            .map_or_else(|| BUILT_IN_GLB.to_owned(), |n| n.to_string_lossy().into_owned());
        let export = export_bevy_masked(self.model(), self.machine().machine(), &gltf)?;
        let sidecar = bevy_sidecar(path);
        write(path, &export.graph_ron, "the Bevy animation graph")?;
        write(&sidecar, &export.transitions_ron, "the Bevy transitions sidecar")?;
        Ok(sidecar)
    }
}

/// The bones layer `layer` of state `state` covers, with their weights, as Godot paths
/// (`paths`: [`godot_bone_paths`]); `None` for a layer over the whole body (no filter) or one
/// that does not resolve on the model (the stage plays it over the whole body too).
fn godot_layer_bones(
    model: &Model,
    paths: &[Option<String>],
    machine: &StateMachine,
    state: StateId,
    layer: usize,
) -> Option<Vec<GodotBone>> {
    let StateMotion::Layered(layered) = &machine.state(state)?.motion else { return None };
    let desc = super::machine_play::layer_spec(layered.layers.get(layer)?).resolve(model).ok()?;
    if desc.mask.is_empty() {
        return None;
    }
    let bones = model
        .node_ids()
        .filter_map(|node| {
            let path = paths.get(node.index())?.clone()?;
            Some(GodotBone { path, weight: desc.mask.get(node) })
        })
        .collect();
    Some(bones)
}

/// `NAME.animgraph.ron` → `NAME.transitions.ron` beside it (any other name: `.transitions.ron`
/// appended to its stem).
pub fn bevy_sidecar(graph: &Path) -> PathBuf {
    let name = graph.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let stem = name.strip_suffix(".animgraph.ron").or_else(|| name.strip_suffix(".ron")).unwrap_or(&name).to_owned();
    graph.with_file_name(format!("{stem}.transitions.ron"))
}

fn write(path: &Path, text: &str, what: &'static str) -> Result<(), EngineExportError> {
    std::fs::write(path, text).map_err(|source| EngineExportError::Write { what, path: path.to_owned(), source })
}

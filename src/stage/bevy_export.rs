//! The Bevy export with the layers' masks: [`export_bevy_masked`] gives the core's
//! [`export_bevy`] each node's Bevy `AnimationTargetId` and each layered state's layers
//! resolved on the model (the same [`LayerSpec::resolve`] the stage plays them through), so the
//! command line and the viewer write the same mask groups.
//!
//! A node's id is what Bevy 0.18's glTF loader gives it: the names from the node a scene lists
//! down to the node (an unnamed node is `GltfNode{index}`), hashed as `bevy_animation`'s
//! `AnimationTargetId::from_names` hashes them — blake3 over Bevy's namespace UUID and the names
//! in order, the first 16 bytes of the hash made a version-5 UUID.

use anim::Model;
use anim::state_machine::{
    BevyExport, BevyLayerMask, BevyMasks, StateId, StateMachine, StateMachineError, StateMotion, export_bevy,
};
use thiserror::Error;

use super::layers::LayerSpecError;
use super::machine_play::layer_spec;

/// `bevy_animation`'s `ANIMATION_TARGET_NAMESPACE`, the UUID hashed before a target's names.
const ANIMATION_TARGET_NAMESPACE: u128 = 0x3179_f519_d927_4ff2_b596_6fd0_7702_3911;

/// Why the Bevy export failed.
#[derive(Debug, Error)]
pub enum BevyExportError {
    /// A layered state's layer does not fit the model.
    #[error("state \"{state}\", layer {layer}: {source}")]
    Layer {
        /// The layered state.
        state: String,
        /// The layer's index, from 0.
        layer: usize,
        /// What does not fit.
        source: LayerSpecError,
    },
    /// The machine does not validate.
    #[error(transparent)]
    Machine(#[from] StateMachineError),
}

/// Each node's name path as Bevy's glTF loader builds it, by node index: the names from the
/// scene's root node down to the node; `None` for a node under no scene.
pub fn gltf_name_paths(model: &Model) -> Vec<Option<Vec<String>>> {
    let name = |n: anim::NodeId| {
        model.node(n).and_then(|node| node.name.clone()).unwrap_or_else(|| format!("GltfNode{}", n.index()))
    };
    let mut paths: Vec<Option<Vec<String>>> = vec![None; model.nodes().len()];
    for scene in model.scenes() {
        for &root in &scene.roots {
            let mut stack = vec![(root, Vec::new())];
            while let Some((node, mut path)) = stack.pop() {
                path.push(name(node));
                for &child in model.hierarchy.children(node) {
                    stack.push((child, path.clone()));
                }
                if let Some(slot) = paths.get_mut(node.index()) {
                    *slot = Some(path);
                }
            }
        }
    }
    paths
}

/// Bevy's `AnimationTargetId::from_names(names)` as UUID text (lower-case, hyphenated).
pub fn animation_target_id<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    let mut hasher = blake3::Hasher::new();
    hasher.update(&ANIMATION_TARGET_NAMESPACE.to_be_bytes());
    for name in names {
        hasher.update(name.as_bytes());
    }
    let mut bytes = [0_u8; 16];
    bytes.copy_from_slice(&hasher.finalize().as_bytes()[..16]);
    // uuid's `Builder::from_sha1_bytes`: version 5, RFC 4122 variant.
    bytes[6] = (bytes[6] & 0x0f) | 0x50;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..])
}

/// What [`export_bevy`] needs of `model` to mask `machine`'s layers: each node's target id and
/// every layer of every layered state resolved to a weight per node (a whole-body layer at 1).
///
/// # Errors
/// A layer whose clip, joint or region the model lacks.
pub fn bevy_masks(model: &Model, machine: &StateMachine) -> Result<BevyMasks, BevyExportError> {
    let target_ids = gltf_name_paths(model)
        .iter()
        .map(|path| path.as_ref().map(|names| animation_target_id(names.iter().map(String::as_str))))
        .collect();
    let mut layers = Vec::new();
    for (i, state) in machine.states().iter().enumerate() {
        let StateMotion::Layered(layered) = &state.motion else { continue };
        let id = StateId::new(u32::try_from(i).unwrap_or(u32::MAX));
        for (layer, motion) in layered.layers.iter().enumerate() {
            let desc = layer_spec(motion).resolve(model).map_err(|source| BevyExportError::Layer {
                state: state.name.clone(),
                layer,
                source,
            })?;
            let node_weights =
                if desc.mask.is_empty() { vec![1.0; model.nodes().len()] } else { desc.mask.weights().to_vec() };
            layers.push(BevyLayerMask { state: id, layer, node_weights });
        }
    }
    Ok(BevyMasks { target_ids, layers })
}

/// `machine` written for Bevy (clips from `gltf_path`), its layers' masks as mask groups of
/// `model`'s targets.
///
/// # Errors
/// A layer that does not fit the model, or a machine that does not validate.
pub fn export_bevy_masked(
    model: &Model,
    machine: &StateMachine,
    gltf_path: &str,
) -> Result<BevyExport, BevyExportError> {
    let masks = bevy_masks(model, machine)?;
    Ok(export_bevy(machine, gltf_path, &masks)?)
}

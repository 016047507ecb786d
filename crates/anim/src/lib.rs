//! The pure animation core of animtune.
//!
//! * [`import`]: glTF 2.0 files into an owned [`Model`] (nodes, meshes, skins, materials, clips),
//!   with typed errors ([`ImportError`]) that name the object at fault.
//! * [`RawClip`] → [`Clip`]: the editable authored form of a clip and its built, immutable
//!   runtime form (ozz's offline/runtime split).
//! * One runtime pose, [`SoaPose`] (local transforms in blocks of eight nodes), and one job per
//!   operation over caller-owned buffers, none of which allocates per frame:
//!   [`Clip::sample`] (spec-exact STEP / LINEAR / CUBICSPLINE, interpolation overrides and the
//!   "wrong space" teaching modes, [`SampleSettings`]), [`blend_poses`] / [`blend_into`]
//!   / [`blend_poses_per_node`], [`CrossFader`] (time-based cross-fades that survive interruption),
//!   [`Hierarchy::local_to_model`] and [`PreparedSkin::skinning_matrices`]. The node-indexed
//!   view ([`SoaPose::get`], [`SoaPose::nodes`], a [`NodePose`] copy) and the curve path
//!   ([`Clip::evaluate_track`]) are for the edges that think in nodes and tracks.
//! * [`morph_and_skin`]: CPU morph targets and linear blend skinning of a primitive (the
//!   reference for the GPU shader, and animated bounds).
//! * [`ragdoll`]: the ragdoll blend weight over time, world → local pose conversion and where a
//!   clip is played after a get-up (the physics itself lives in the application).
//! * [`workload`]: W64, the in-memory benchmark skeleton and clips; [`rng`]: the seeded stream.
//!
//! * [`bake`]: a clip sampled with an override baked into keys (exactly, or resampled), and the
//!   deviation between two samplings.
//! * [`export`]: the GLB writer and [`export::replace_clip`], which writes a file back with one
//!   clip's keys replaced (`animtune bake`).
//! * [`retarget`]: pose transfer between two skeletons in model space (rest offsets, scaled
//!   hips); [`ik`]: two-bone inverse kinematics (planted feet).
//! * [`pointer`]: `KHR_animation_pointer` property tracks (materials, texture transforms,
//!   visibility).
//! * [`state_machine`]: the character's state machine (states, parameters, transitions with
//!   conditions, interruption rules and clip events), its per-frame job
//!   ([`state_machine::MachineRuntime`]) and its export to Godot 4 (`.tres`, read back too)
//!   and Bevy (`.animgraph.ron`).
//! * [`rewind`]: the last seconds of frames (pose, weights, state, parameters, events) in a ring
//!   of fixed, measured memory ([`RewindBuffer`]), scrubbed back with interpolation.
//!
//! Typed indices ([`NodeId`], [`ClipId`], [`TrackId`]) name nodes, clips and tracks. The SIMD
//! kernels run on AVX2+FMA only with a token from run-time detection ([`simd8`]).
//!
//! Depends on glam, `serde_json` (JSON parsing), thiserror and bytemuck (checked casts) only: no
//! GPU, UI or physics. Compressed data (meshopt, Draco) is decoded through the
//! [`import::Decoder`] seam by a decoder crate the application passes in.

pub mod bake;
pub mod blend_space;
pub mod clip;
pub mod crossfade;
pub mod error;
pub mod export;
pub mod hierarchy;
pub mod ids;
pub mod ik;
pub mod import;
pub mod interp;
pub mod layers;
pub mod model;
pub mod phase;
pub mod pointer;
pub mod pose;
pub mod ragdoll;
pub mod retarget;
pub mod rewind;
pub mod rng;
pub mod sample;
pub mod simd8;
pub mod skin;
pub mod skinning;
mod soa;
pub mod state_machine;
pub mod timeline;
pub mod track;
pub mod workload;

pub use blend_space::{BlendPoint, BlendSpace, BlendSpaceError, BlendSpacePlayer, PhaseSync};
pub use clip::{Clip, ClipError, RawClip};
pub use crossfade::{CrossFader, Layer, RootMotion, Transition, TransitionKind};
pub use error::{ImportError, ObjectKind, ObjectRef, Problem};
pub use hierarchy::{Hierarchy, HierarchyError, LocalMatrices};
pub use ids::{ClipId, NodeId, TrackId};
pub use interp::{Easing, OffsetDecay, RotationSpace, ScaleSpace};
pub use layers::{
    AdditiveReference, LayerBlend, LayerDesc, LayerError, LayerStack, NodeMask, apply_additive, apply_override,
};
pub use model::{
    AlphaMode, ExtensionStatus, ExtensionUse, Image, Material, Mesh, Model, MorphTarget, Node, Primitive,
    PrimitiveMode, Scene, TextureRef, TextureTransform,
};
pub use phase::{FootContact, find_foot_contacts, find_foot_lift_offs, foot_ground_heights, synced_start_secs};
pub use pointer::{PointerTarget, PointerTrack};
pub use pose::{
    NodePose, PoseDelta, SoaPose, SoaTransforms, Transform, blend_into, blend_into_per_node, blend_poses,
    blend_poses_per_node,
};
pub use rewind::{FrameFacts, FrameFactsOut, RewindBuffer, RewindError, RewindLayout, RewindTransition};
pub use sample::{ClipCursor, InterpolationOverride, SampleSettings, TrackSample};
pub use simd8::{F8, simd_path};
pub use skin::{PreparedSkin, Skin};
pub use skinning::{SkinningError, morph_and_skin, vertex_skin_matrix};
pub use timeline::{Segment, Timeline};
pub use track::{Interpolation, Property, Track, TrackValues};

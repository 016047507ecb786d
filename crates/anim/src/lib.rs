//! The pure animation core of animtune.
//!
//! * [`import`]: glTF 2.0 files into an owned [`Model`] (nodes, meshes, skins, materials, clips),
//!   with typed errors ([`ImportError`]) that name the object at fault.
//! * [`Clip::sample`]: spec-exact STEP / LINEAR / CUBICSPLINE sampling into a [`Pose`], with
//!   interpolation overrides and the "wrong space" teaching modes ([`SampleSettings`]).
//! * [`blend_poses`], [`Hierarchy::local_to_model`], [`skinning_matrices`]: blending and
//!   skinning-palette jobs over caller-owned buffers; per-frame calls allocate nothing.
//! * [`morph_and_skin`]: CPU morph targets and linear blend skinning of a primitive (the
//!   reference for the GPU shader, and animated bounds).
//! * [`CrossFader`]: time-based cross-fades that survive interruption and rapid re-triggering.
//! * [`ragdoll`]: the ragdoll blend weight over time and world → local pose conversion (the
//!   physics itself lives in the application).
//! * [`workload`]: W64, the in-memory benchmark skeleton and clips.
//!
//! Depends on glam, `serde_json` (JSON parsing) and thiserror only: no GPU, UI or physics.
//! Compressed data (meshopt, Draco) is decoded through the [`import::Decoder`] seam by a
//! decoder crate the application passes in.

pub mod clip;
pub mod crossfade;
pub mod error;
pub mod hierarchy;
mod hierarchy_soa;
pub mod import;
pub mod interp;
pub mod model;
pub mod pointer;
pub mod pose;
pub mod ragdoll;
pub mod sample;
pub mod simd8;
pub mod skinning;
mod soa;
pub mod soa_pose;
pub mod workload;

pub use clip::{Clip, ClipError, Interpolation, Property, Timeline, Track, TrackValues};
pub use crossfade::{CrossFader, Layer};
pub use error::{ImportError, ObjectKind, ObjectRef, Problem};
pub use hierarchy::{Hierarchy, skinning_matrices};
pub use hierarchy_soa::{LocalMatrices, PreparedSkin};
pub use interp::{Easing, RotationSpace, ScaleSpace};
pub use model::{
    ExtensionStatus, ExtensionUse, Image, Material, Mesh, Model, MorphTarget, Node, Primitive, PrimitiveMode, Scene,
    Skin, TextureRef, TextureTransform, Transform,
};
pub use pointer::{PointerTarget, PointerTrack};
pub use pose::{Pose, blend_into, blend_poses};
pub use sample::{ClipCursor, InterpolationOverride, SampleSettings, Segment, TrackSample};
pub use simd8::{F8, simd_path};
pub use skinning::{SkinningError, morph_and_skin, vertex_skin_matrix};
pub use soa_pose::{SoaPose, SoaTransforms, blend_soa_into, blend_soa_poses};

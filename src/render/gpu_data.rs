//! Every `#[repr(C)]` struct the GPU reads, in one place. Each one mirrors a WGSL struct:
//! keep them in sync with `shaders/mesh.wgsl`, `shaders/ground.wgsl` and `shaders/overlay.wgsl`
//! (those files point back here).

use bytemuck::{Pod, Zeroable};

/// Stride of one slot in a dynamic-offset uniform buffer: a multiple of
/// `min_uniform_buffer_offset_alignment` (at most 256 on every backend) that holds
/// [`DrawUniforms`].
pub const UNIFORM_SLOT_BYTES: u64 = 512;

/// [`DrawUniforms::alpha_mode`] of `alphaMode` OPAQUE: alpha ignored (drawn opaque).
pub const ALPHA_OPAQUE: u32 = 0;
/// [`DrawUniforms::alpha_mode`] of `alphaMode` MASK: cut out below the cutoff, opaque above.
pub const ALPHA_MASK: u32 = 1;
/// [`DrawUniforms::alpha_mode`] of `alphaMode` BLEND: alpha blended.
pub const ALPHA_BLEND: u32 = 2;

/// The identity texture-coordinate transform.
pub const UV_IDENTITY: [[f32; 4]; 2] = [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]];

/// One mesh vertex: static attributes plus up to 8 skin influences.
///
/// Keep in sync with `VertexIn` in `shaders/mesh.wgsl`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct GpuVertex {
    /// Position in the mesh frame.
    pub position: [f32; 3],
    /// Normal in the mesh frame (zero when the primitive has none: the shader then uses the face normal).
    pub normal: [f32; 3],
    /// First texture coordinate set.
    pub texcoord: [f32; 2],
    /// Linear RGBA vertex colour (white when absent).
    pub color: [f32; 4],
    /// `JOINTS_0`.
    pub joints0: [u32; 4],
    /// `WEIGHTS_0`.
    pub weights0: [f32; 4],
    /// `JOINTS_1` (zeros when absent).
    pub joints1: [u32; 4],
    /// `WEIGHTS_1` (zeros when absent).
    pub weights1: [f32; 4],
}

/// Per-viewport constants: camera and lights.
///
/// Keep in sync with `ViewUniforms` in `shaders/mesh.wgsl`, `shaders/ground.wgsl`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct ViewUniforms {
    /// `clip_from_world` of the viewport's camera.
    pub clip_from_world: [[f32; 4]; 4],
    /// Eye position in the world frame (w unused).
    pub eye_world: [f32; 4],
    /// Unit direction towards the key light, world frame (w unused).
    pub light_dir_world: [f32; 4],
    /// Key light colour, linear RGB (w unused).
    pub light_color: [f32; 4],
    /// Hemisphere ambient from above, linear RGB (w unused).
    pub sky_color: [f32; 4],
    /// Hemisphere ambient from below, linear RGB (w unused).
    pub ground_color: [f32; 4],
    /// Contact shadow: centre x, centre z, radius, strength (0 = none).
    pub blob: [f32; 4],
    /// Ground grid: cell size, half extent, centre x, centre z (world units).
    pub grid: [f32; 4],
    /// Ground plane: height (world y) of the ground, then unused.
    pub ground: [f32; 4],
}

/// Per-draw constants: one primitive of one node of one model instance.
///
/// Keep in sync with `DrawUniforms` in `shaders/mesh.wgsl`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct DrawUniforms {
    /// `world_from_mesh` of an unskinned node (ignored when skinned: the palette holds it).
    pub world_from_mesh: [[f32; 4]; 4],
    /// Inverse transpose of `world_from_mesh`, for normals.
    pub normal_from_mesh: [[f32; 4]; 4],
    /// Material base colour factor, linear RGBA.
    pub base_color: [f32; 4],
    /// Base colour texture transform (`KHR_texture_transform`): `uv' = (row0 · (u, v, 1),
    /// row1 · (u, v, 1))`; w unused.
    pub uv_transform: [[f32; 4]; 2],
    /// Emissive texture transform, as `uv_transform`.
    pub emissive_uv_transform: [[f32; 4]; 2],
    /// Tint colour (linear RGB) mixed in by `tint[3]` (ghost poses).
    pub tint: [f32; 4],
    /// Emitted light added to the lit colour, linear RGB (`emissiveFactor` ×
    /// `emissiveStrength`); `[3]`: the `alphaCutoff` of a MASK material (read when `alpha_mask`).
    pub emissive: [f32; 4],
    /// First palette entry of this node's skin for this instance.
    pub palette_offset: u32,
    /// Joint count of the skin (influences at or beyond it are ignored).
    pub joint_count: u32,
    /// 0 (unskinned), 4 (`JOINTS_0`) or 8 (`JOINTS_0` + `JOINTS_1`).
    pub influences: u32,
    /// Number of morph targets.
    pub morph_target_count: u32,
    /// First `vec4` of this primitive's deltas in the morph delta buffer.
    pub morph_offset: u32,
    /// Vertex count of the primitive (stride of one target in the deltas).
    pub morph_vertex_count: u32,
    /// First weight of this node for this instance in the morph weight buffer.
    pub weights_offset: u32,
    /// Opacity multiplier (1 opaque; ghosts below 1).
    pub opacity: f32,
    /// 1: paint the joint heat (read from the heat buffer at `palette_offset`) instead of the
    /// material colour; 0: normal colours.
    pub heat: u32,
    /// Crowds: palette entries per instance (`@builtin(instance_index)` × this is added).
    pub palette_stride: u32,
    /// Crowds: morph weights per instance.
    pub weights_stride: u32,
    /// The material's alpha mode: [`ALPHA_OPAQUE`], [`ALPHA_MASK`] (fragments with alpha below
    /// `emissive[3]` are discarded, the rest are opaque) or [`ALPHA_BLEND`].
    pub alpha_mode: u32,
}

/// One vertex of the screen-space overlay (skeleton lines and joint dots), already in clip space.
///
/// Keep in sync with `OverlayIn` in `shaders/overlay.wgsl`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct OverlayVertex {
    /// Clip-space position.
    pub clip_position: [f32; 4],
    /// Linear RGBA colour.
    pub color: [f32; 4],
    /// Corner in `[-1, 1]²` for dots (discs); zero for lines.
    pub corner: [f32; 2],
    /// Padding to a 16-byte multiple.
    pub padding: [f32; 2],
}

const _: () = assert!(std::mem::size_of::<GpuVertex>() == 112);
const _: () = assert!(std::mem::size_of::<ViewUniforms>() as u64 <= UNIFORM_SLOT_BYTES);
const _: () = assert!(std::mem::size_of::<DrawUniforms>() == 288);
const _: () = assert!(std::mem::size_of::<DrawUniforms>() as u64 <= UNIFORM_SLOT_BYTES);
const _: () = assert!(std::mem::size_of::<OverlayVertex>() == 48);

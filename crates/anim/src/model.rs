//! The owned runtime model produced by the importer. No `gltf` type appears here.

use glam::{Vec2, Vec3, Vec4};

use crate::clip::Clip;
use crate::hierarchy::Hierarchy;
use crate::ids::{ClipId, NodeId};
use crate::pose::{SoaPose, Transform};
use crate::skin::Skin;

/// A node of the glTF hierarchy.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// The node's name, when it has one.
    pub name: Option<String>,
    /// Rest (authored) local transform; a `matrix` is decomposed into this.
    pub rest: Transform,
    /// Mesh drawn at this node.
    pub mesh: Option<usize>,
    /// Skin deforming that mesh.
    pub skin: Option<usize>,
    /// Rest morph weights (the node's `weights`, else the mesh's, else zeros); empty without morphs.
    pub rest_weights: Vec<f32>,
    /// Offset of this node's morph weights in [`SoaPose::weights`].
    pub weights_offset: usize,
}

/// A scene: a set of root nodes.
#[derive(Debug, Clone, PartialEq)]
pub struct Scene {
    /// The scene's name, when it has one.
    pub name: Option<String>,
    /// Root nodes of the scene.
    pub roots: Vec<NodeId>,
}

/// Topology of a primitive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrimitiveMode {
    /// `0`.
    Points,
    /// `1`.
    Lines,
    /// `2`.
    LineLoop,
    /// `3`.
    LineStrip,
    /// `4` (the default).
    Triangles,
    /// `5`.
    TriangleStrip,
    /// `6`.
    TriangleFan,
}

/// One morph target of a primitive: per-vertex deltas.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MorphTarget {
    /// Position deltas (zeros when the target has none).
    pub positions: Vec<Vec3>,
    /// Normal deltas (empty when the target has none).
    pub normals: Vec<Vec3>,
}

/// A drawable piece of a mesh.
#[derive(Debug, Clone, PartialEq)]
pub struct Primitive {
    /// Topology.
    pub mode: PrimitiveMode,
    /// Vertex positions in the mesh frame.
    pub positions: Vec<Vec3>,
    /// Vertex normals (empty when absent).
    pub normals: Vec<Vec3>,
    /// First texture coordinate set (empty when absent).
    pub texcoords: Vec<Vec2>,
    /// Linear RGBA vertex colours (empty when absent).
    pub colors: Vec<Vec4>,
    /// Joint indices (into the skin's joint list), one set of four per influence group:
    /// `joints[0]` from `JOINTS_0`, `joints[1]` from `JOINTS_1`.
    pub joints: Vec<Vec<[u16; 4]>>,
    /// Weights matching `joints`.
    pub weights: Vec<Vec<Vec4>>,
    /// Triangle/line indices (`None` for non-indexed geometry).
    pub indices: Option<Vec<u32>>,
    /// Material index (`None`: the default material).
    pub material: Option<usize>,
    /// Morph targets.
    pub targets: Vec<MorphTarget>,
}

/// A mesh: primitives sharing morph weights.
#[derive(Debug, Clone, PartialEq)]
pub struct Mesh {
    /// The mesh's name, when it has one.
    pub name: Option<String>,
    /// Its primitives.
    pub primitives: Vec<Primitive>,
    /// Default morph weights (zeros when the file gives none).
    pub default_weights: Vec<f32>,
    /// Morph target names from `extras.targetNames`, when present.
    pub target_names: Vec<String>,
}

impl Mesh {
    /// Number of morph targets (the same for every primitive).
    pub fn target_count(&self) -> usize {
        self.primitives.first().map_or(0, |p| p.targets.len())
    }
}

/// Where an image's encoded bytes came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Image {
    /// The image's name, when it has one.
    pub name: Option<String>,
    /// MIME type when known (`image/png`, `image/jpeg`, `image/webp`, `image/ktx2`).
    pub mime_type: Option<String>,
    /// Encoded bytes (PNG, JPEG, WebP, KTX2), decoded by the renderer.
    pub bytes: Vec<u8>,
}

/// A material (the subset animtune draws).
#[derive(Debug, Clone, PartialEq)]
pub struct Material {
    /// The material's name, when it has one.
    pub name: Option<String>,
    /// Linear RGBA base colour factor.
    pub base_color_factor: Vec4,
    /// Base colour texture: image index, texture coordinate set and transform.
    pub base_color_texture: Option<TextureRef>,
    /// Metallic factor.
    pub metallic_factor: f32,
    /// Roughness factor.
    pub roughness_factor: f32,
    /// Linear RGB emissive factor (`emissiveFactor`; black when absent).
    pub emissive_factor: Vec3,
    /// `KHR_materials_emissive_strength`: multiplies the emissive factor (1 when absent).
    pub emissive_strength: f32,
    /// Emissive texture (sRGB, multiplies the factor): image index, texture coordinate set and
    /// transform.
    pub emissive_texture: Option<TextureRef>,
    /// Draw both faces.
    pub double_sided: bool,
    /// How the base colour alpha is used (`alphaMode`).
    pub alpha_mode: AlphaMode,
    /// `alphaCutoff`: fragments with a lower alpha are not drawn in [`AlphaMode::Mask`] (0.5
    /// when absent; unused in the other modes).
    pub alpha_cutoff: f32,
}

/// A material's `alphaMode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AlphaMode {
    /// Alpha ignored: fully opaque.
    #[default]
    Opaque,
    /// Opaque where alpha is at least the cutoff, not drawn elsewhere.
    Mask,
    /// Alpha blended over what is behind.
    Blend,
}

impl Default for Material {
    fn default() -> Self {
        Self {
            name: None,
            base_color_factor: Vec4::ONE,
            base_color_texture: None,
            metallic_factor: 1.0,
            roughness_factor: 1.0,
            emissive_factor: Vec3::ZERO,
            emissive_strength: 1.0,
            emissive_texture: None,
            double_sided: false,
            alpha_mode: AlphaMode::Opaque,
            alpha_cutoff: 0.5,
        }
    }
}

/// A material's reference to an image.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TextureRef {
    /// Index into [`Model::images`].
    pub image: usize,
    /// `TEXCOORD_n` set used.
    pub texcoord: u32,
    /// `KHR_texture_transform`, when the texture reference has one.
    pub transform: Option<TextureTransform>,
}

/// `KHR_texture_transform`: texture coordinates are mapped as
/// `uv' = translation(offset) × rotation(rotation_rad) × scale(scale) × uv`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TextureTransform {
    /// Offset added last, in texture-coordinate units.
    pub offset: Vec2,
    /// Rotation in radians, counter-clockwise in texture space (applied after the scale).
    pub rotation_rad: f32,
    /// Scale applied first.
    pub scale: Vec2,
}

impl Default for TextureTransform {
    fn default() -> Self {
        Self { offset: Vec2::ZERO, rotation_rad: 0.0, scale: Vec2::ONE }
    }
}

impl TextureTransform {
    /// The transform as the two rows of a 2×3 matrix: `uv'.x = row0 · (u, v, 1)`,
    /// `uv'.y = row1 · (u, v, 1)`.
    pub fn rows(&self) -> [[f32; 3]; 2] {
        let (sin, cos) = self.rotation_rad.sin_cos();
        let (sx, sy) = (self.scale.x, self.scale.y);
        [[cos * sx, sin * sy, self.offset.x], [-sin * sx, cos * sy, self.offset.y]]
    }
}

/// What animtune does with a glTF extension a file uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExtensionStatus {
    /// Its data was decoded (compression, quantization, image formats).
    Decoded,
    /// Its values were read and are used (texture transforms, animation pointers, …).
    Applied,
    /// Loaded without it: it changes only what animtune does not draw, or its data has a
    /// fallback that was used instead.
    Ignored,
}

impl ExtensionStatus {
    /// Lower-case word used in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Decoded => "decoded",
            Self::Applied => "applied",
            Self::Ignored => "ignored",
        }
    }
}

/// An extension named in `extensionsUsed` (or found in the file), and what animtune did with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtensionUse {
    /// The extension's name.
    pub name: String,
    /// Listed in `extensionsRequired`.
    pub required: bool,
    /// What was done with it.
    pub status: ExtensionStatus,
    /// Why, in a few words (shown by `info`; the warning for ignored ones).
    pub note: String,
}

/// An imported glTF model: everything animtune uses, owned, validated.
///
/// Its collections (nodes, scenes, meshes, skins, materials, clips) are private: read them with
/// the typed accessors ([`Model::node`], [`Model::clip`] and `model[id]` by id; [`Model::nodes`],
/// [`Model::clips`], … as slices). The importer builds a model; after that only the few
/// documented editors change it ([`Model::push_clip`], [`Model::replace_clip`],
/// [`Model::replace_clips`], [`Model::set_node_name`], [`Model::set_node_rest`],
/// [`Model::set_skin_name`], [`Model::primitives_mut`]), each keeping the model consistent.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    /// Nodes in file order (a node's position is its [`NodeId`], its glTF node index).
    pub(crate) nodes: Vec<Node>,
    /// The node tree: parents, children and the parents-first order (the one owner of
    /// parentage).
    pub hierarchy: Hierarchy,
    /// Scenes.
    pub(crate) scenes: Vec<Scene>,
    /// The default scene (`scene`), when given.
    pub default_scene: Option<usize>,
    /// Meshes.
    pub(crate) meshes: Vec<Mesh>,
    /// Skins.
    pub(crate) skins: Vec<Skin>,
    /// Materials.
    pub(crate) materials: Vec<Material>,
    /// Images (encoded).
    pub images: Vec<Image>,
    /// Animation clips, one per glTF animation, in file order.
    pub(crate) clips: Vec<Clip>,
    /// Total number of morph weights over all nodes (length of [`SoaPose::weights`]).
    pub weight_count: usize,
    /// Every extension the file uses, with what was done with it.
    pub extensions: Vec<ExtensionUse>,
    /// Authored `KHR_node_visibility` of each node (`visible`, default true; a hidden node
    /// hides its descendants).
    pub node_visible: Vec<bool>,
    /// `KHR_animation_pointer` property tracks (materials, texture transforms, visibility) of
    /// each clip, by clip index (empty when the file has none; pointers at node transforms and
    /// weights are ordinary tracks of the clip).
    pub pointer_tracks: Vec<Vec<crate::pointer::PointerTrack>>,
}

impl std::ops::Index<NodeId> for Model {
    type Output = Node;

    /// The node `id`.
    ///
    /// # Panics
    /// When the model has no node `id` (ids this model handed out are always in range; use
    /// [`Model::node`] for ids from elsewhere).
    fn index(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }
}

impl std::ops::Index<ClipId> for Model {
    type Output = Clip;

    /// The clip `id`.
    ///
    /// # Panics
    /// When the model has no clip `id` (ids this model handed out are always in range; use
    /// [`Model::clip`] for ids from elsewhere).
    fn index(&self, id: ClipId) -> &Clip {
        &self.clips[id.index()]
    }
}

impl Model {
    /// Every node, in file order (a node's position is its [`NodeId`]).
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// Every scene, in file order.
    pub fn scenes(&self) -> &[Scene] {
        &self.scenes
    }

    /// Every mesh, in file order ([`Node::mesh`] is a position in it).
    pub fn meshes(&self) -> &[Mesh] {
        &self.meshes
    }

    /// Every skin, in file order ([`Node::skin`] is a position in it).
    pub fn skins(&self) -> &[Skin] {
        &self.skins
    }

    /// Every material, in file order ([`Primitive::material`] is a position in it).
    pub fn materials(&self) -> &[Material] {
        &self.materials
    }

    /// Every clip, in file order (a clip's position is its [`ClipId`]).
    pub fn clips(&self) -> &[Clip] {
        &self.clips
    }

    /// The mesh at `index` ([`Node::mesh`]), if the model has it.
    pub fn mesh(&self, index: usize) -> Option<&Mesh> {
        self.meshes.get(index)
    }

    /// The skin at `index` ([`Node::skin`]), if the model has it.
    pub fn skin(&self, index: usize) -> Option<&Skin> {
        self.skins.get(index)
    }

    /// The material at `index` ([`Primitive::material`]), if the model has it.
    pub fn material(&self, index: usize) -> Option<&Material> {
        self.materials.get(index)
    }

    /// Adds `clip` after the others (a retargeted or re-imported clip) and returns its id. The
    /// clip has no property tracks.
    pub fn push_clip(&mut self, clip: Clip) -> ClipId {
        let id = ClipId::from_index(self.clips.len());
        self.clips.push(clip);
        self.pointer_tracks.resize_with(self.clips.len(), Vec::new);
        id
    }

    /// Puts `clip` in the place of clip `id` (its property tracks stay) and returns the clip it
    /// replaced; `None` (and `clip` dropped) when the model has no clip `id`.
    pub fn replace_clip(&mut self, id: ClipId, clip: Clip) -> Option<Clip> {
        self.clips.get_mut(id.index()).map(|slot| std::mem::replace(slot, clip))
    }

    /// Replaces every clip by `clips` (ids from 0 in the given order); the property tracks go.
    pub fn replace_clips(&mut self, clips: impl IntoIterator<Item = Clip>) {
        self.clips = clips.into_iter().collect();
        self.pointer_tracks.clear();
    }

    /// Renames node `id` (nothing when the model has no such node).
    pub fn set_node_name(&mut self, id: NodeId, name: Option<String>) {
        if let Some(node) = self.nodes.get_mut(id.index()) {
            node.name = name;
        }
    }

    /// Sets the rest (authored) local transform of node `id` (nothing when the model has no such
    /// node); poses made from [`Model::rest_pose`] afterwards start from it.
    pub fn set_node_rest(&mut self, id: NodeId, rest: Transform) {
        if let Some(node) = self.nodes.get_mut(id.index()) {
            node.rest = rest;
        }
    }

    /// Renames the skin at `index` (nothing when the model has no such skin).
    pub fn set_skin_name(&mut self, index: usize, name: Option<String>) {
        if let Some(skin) = self.skins.get_mut(index) {
            skin.name = name;
        }
    }

    /// Every primitive of every mesh, to edit vertex data in place (tools and tests that reshape
    /// geometry). The caller keeps each primitive's attribute lengths equal and its joint
    /// indices inside its skin.
    pub fn primitives_mut(&mut self) -> impl Iterator<Item = &mut Primitive> {
        self.meshes.iter_mut().flat_map(|m| m.primitives.iter_mut())
    }

    /// The node `id`, if the model has it.
    pub fn node(&self, id: NodeId) -> Option<&Node> {
        self.nodes.get(id.index())
    }

    /// The clip `id`, if the model has it.
    pub fn clip(&self, id: ClipId) -> Option<&Clip> {
        self.clips.get(id.index())
    }

    /// The id of every node, in file order.
    pub fn node_ids(&self) -> impl ExactSizeIterator<Item = NodeId> + use<> {
        (0..self.nodes.len()).map(NodeId::from_index)
    }

    /// Every clip with its id.
    pub fn clip_ids(&self) -> impl Iterator<Item = (ClipId, &Clip)> {
        self.clips.iter().enumerate().map(|(i, c)| (ClipId::from_index(i), c))
    }

    /// The name of node `id` (`node <index>` when it has none).
    pub fn node_name(&self, id: NodeId) -> String {
        self.node(id).and_then(|n| n.name.clone()).unwrap_or_else(|| format!("node {id}"))
    }

    /// Find a clip by name, or else by decimal index.
    pub fn find_clip(&self, name_or_index: &str) -> Option<ClipId> {
        self.clips
            .iter()
            .position(|c| c.name() == Some(name_or_index))
            .or_else(|| name_or_index.parse::<usize>().ok().filter(|&i| i < self.clips.len()))
            .map(ClipId::from_index)
    }

    /// Find a node by name, or else by decimal index.
    pub fn find_node(&self, name_or_index: &str) -> Option<NodeId> {
        self.nodes
            .iter()
            .position(|n| n.name.as_deref() == Some(name_or_index))
            .or_else(|| name_or_index.parse::<usize>().ok().filter(|&i| i < self.nodes.len()))
            .map(NodeId::from_index)
    }

    /// The property tracks of clip `clip` (empty for none).
    pub fn clip_pointer_tracks(&self, clip: ClipId) -> &[crate::pointer::PointerTrack] {
        self.pointer_tracks.get(clip.index()).map_or(&[], Vec::as_slice)
    }

    /// The nodes of the scene to show: the default scene, else scene 0, else every root node.
    pub fn scene_roots(&self) -> Vec<NodeId> {
        match self.default_scene.or(if self.scenes.is_empty() { None } else { Some(0) }) {
            Some(s) => self.scenes[s].roots.clone(),
            None => self.hierarchy.roots().collect(),
        }
    }

    /// The rest pose: every node's own transform and morph weights. Allocates; make it once and
    /// copy it ([`SoaPose::copy_from`]) per frame.
    pub fn rest_pose(&self) -> SoaPose {
        let mut weights = vec![0.0; self.weight_count];
        for node in &self.nodes {
            if let Some(slot) = weights.get_mut(node.weights_offset..node.weights_offset + node.rest_weights.len()) {
                slot.copy_from_slice(&node.rest_weights);
            }
        }
        let transforms: Vec<Transform> = self.nodes.iter().map(|n| n.rest).collect();
        SoaPose::from_transforms(&transforms, weights)
    }

    /// The morph weights of node `id` in `pose` (empty without morph targets).
    pub fn node_weights<'a>(&self, id: NodeId, pose: &'a SoaPose) -> &'a [f32] {
        self.node(id)
            .and_then(|n| pose.weights().get(n.weights_offset..n.weights_offset + n.rest_weights.len()))
            .unwrap_or(&[])
    }
}

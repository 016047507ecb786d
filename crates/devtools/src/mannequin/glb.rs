//! Minimal glTF 2.0 document model (only what the mannequin needs) and GLB packing.
//!
//! Field order is fixed by the struct definitions, so the JSON text is deterministic whatever
//! features `serde_json` is compiled with.

use serde::Serialize;

pub const ARRAY_BUFFER: u32 = 34962;
pub const ELEMENT_ARRAY_BUFFER: u32 = 34963;
pub const FLOAT: u32 = 5126;
pub const UNSIGNED_BYTE: u32 = 5121;
pub const UNSIGNED_SHORT: u32 = 5123;
pub const UNSIGNED_INT: u32 = 5125;

#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct Document {
    pub asset: Asset,
    pub scene: usize,
    pub scenes: Vec<Scene>,
    pub nodes: Vec<Node>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub meshes: Vec<Mesh>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub materials: Vec<Material>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skins: Vec<Skin>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub animations: Vec<Animation>,
    pub accessors: Vec<Accessor>,
    pub buffer_views: Vec<BufferView>,
    pub buffers: Vec<Buffer>,
}

#[derive(Serialize, Default)]
pub struct Asset {
    pub version: &'static str,
    pub generator: &'static str,
}

#[derive(Serialize)]
pub struct Scene {
    pub name: &'static str,
    pub nodes: Vec<usize>,
}

#[derive(Serialize, Default)]
pub struct Node {
    pub name: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub translation: Option<[f32; 3]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rotation: Option<[f32; 4]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mesh: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skin: Option<usize>,
}

#[derive(Serialize)]
pub struct Mesh {
    pub name: &'static str,
    pub primitives: Vec<Primitive>,
    pub weights: Vec<f32>,
    pub extras: MeshExtras,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MeshExtras {
    pub target_names: Vec<&'static str>,
}

#[derive(Serialize)]
pub struct Primitive {
    pub attributes: Attributes,
    pub indices: usize,
    pub material: usize,
    pub mode: u32,
    pub targets: Vec<MorphTarget>,
}

#[derive(Serialize)]
pub struct Attributes {
    #[serde(rename = "POSITION")]
    pub position: usize,
    #[serde(rename = "NORMAL")]
    pub normal: usize,
    #[serde(rename = "COLOR_0")]
    pub color_0: usize,
    #[serde(rename = "JOINTS_0")]
    pub joints_0: usize,
    #[serde(rename = "WEIGHTS_0")]
    pub weights_0: usize,
}

#[derive(Serialize)]
pub struct MorphTarget {
    #[serde(rename = "POSITION")]
    pub position: usize,
    #[serde(rename = "NORMAL")]
    pub normal: usize,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Material {
    pub name: &'static str,
    pub pbr_metallic_roughness: Pbr,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Pbr {
    pub base_color_factor: [f32; 4],
    pub metallic_factor: f32,
    pub roughness_factor: f32,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Skin {
    pub name: &'static str,
    pub inverse_bind_matrices: usize,
    pub skeleton: usize,
    pub joints: Vec<usize>,
}

#[derive(Serialize)]
pub struct Animation {
    pub name: String,
    pub channels: Vec<Channel>,
    pub samplers: Vec<Sampler>,
    pub extras: AnimationExtras,
}

#[derive(Serialize)]
pub struct AnimationExtras {
    /// Whether the clip is authored as a seamless loop.
    #[serde(rename = "loop")]
    pub looping: bool,
}

#[derive(Serialize)]
pub struct Channel {
    pub sampler: usize,
    pub target: Target,
}

#[derive(Serialize)]
pub struct Target {
    pub node: usize,
    pub path: &'static str,
}

#[derive(Serialize)]
pub struct Sampler {
    pub input: usize,
    pub interpolation: &'static str,
    pub output: usize,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Accessor {
    /// `None` for sparse accessors whose base is all zeros.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub buffer_view: Option<usize>,
    #[serde(skip_serializing_if = "is_zero")]
    pub byte_offset: usize,
    pub component_type: u32,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub normalized: bool,
    pub count: usize,
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Written as doubles that hold the exact `f32` values.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min: Option<Vec<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max: Option<Vec<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sparse: Option<Sparse>,
}

#[derive(Serialize)]
pub struct Sparse {
    pub count: usize,
    pub indices: SparseIndices,
    pub values: SparseValues,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SparseIndices {
    pub buffer_view: usize,
    pub component_type: u32,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SparseValues {
    pub buffer_view: usize,
}

// serde's skip_serializing_if passes a reference.
#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_zero(v: &usize) -> bool {
    *v == 0
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BufferView {
    pub buffer: usize,
    pub byte_offset: usize,
    pub byte_length: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<u32>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Buffer {
    pub byte_length: usize,
}

/// Collects the binary chunk and the accessors/buffer views describing it.
#[derive(Default)]
pub struct BinBuilder {
    pub bin: Vec<u8>,
    pub views: Vec<BufferView>,
    pub accessors: Vec<Accessor>,
}

impl BinBuilder {
    fn align(&mut self) {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
    }

    /// Appends a buffer view holding `bytes`.
    pub fn view(&mut self, bytes: &[u8], target: Option<u32>) -> usize {
        self.align();
        let offset = self.bin.len();
        self.bin.extend_from_slice(bytes);
        self.views.push(BufferView { buffer: 0, byte_offset: offset, byte_length: bytes.len(), target });
        self.views.len() - 1
    }

    pub fn accessor(&mut self, accessor: Accessor) -> usize {
        self.accessors.push(accessor);
        self.accessors.len() - 1
    }

    /// A float accessor in a view of its own, with min/max when `bounds` is set.
    pub fn floats(&mut self, data: &[f32], kind: &'static str, target: Option<u32>, bounds: bool) -> usize {
        let bytes: Vec<u8> = data.iter().flat_map(|v| v.to_le_bytes()).collect();
        let view = self.view(&bytes, target);
        let width = crate::gltf::components(kind);
        let (min, max) = if bounds { min_max(data, width) } else { (None, None) };
        self.accessor(Accessor {
            buffer_view: Some(view),
            byte_offset: 0,
            component_type: FLOAT,
            normalized: false,
            count: data.len() / width,
            kind,
            min,
            max,
            sparse: None,
        })
    }

    /// A float accessor stored sparsely: only the elements that are not all zero are written
    /// (with their indices); min/max are those of the full data when `bounds` is set.
    pub fn sparse_floats(&mut self, data: &[f32], kind: &'static str, bounds: bool) -> usize {
        let width = crate::gltf::components(kind);
        let count = data.len() / width;
        let mut indices = Vec::new();
        let mut values: Vec<u8> = Vec::new();
        for (i, element) in data.chunks_exact(width).enumerate() {
            if element.iter().any(|&v| v != 0.0) {
                indices.push(u32::try_from(i).expect("element index fits u32"));
                values.extend(element.iter().flat_map(|v| v.to_le_bytes()));
            }
        }
        assert!(!indices.is_empty(), "a sparse accessor needs at least one element");
        let (index_bytes, index_type): (Vec<u8>, u32) = if count <= usize::from(u16::MAX) {
            let bytes = indices.iter().flat_map(|&i| u16::try_from(i).expect("index fits u16").to_le_bytes()).collect();
            (bytes, UNSIGNED_SHORT)
        } else {
            (indices.iter().flat_map(|i| i.to_le_bytes()).collect(), UNSIGNED_INT)
        };
        let index_view = self.view(&index_bytes, None);
        let value_view = self.view(&values, None);
        let (min, max) = if bounds { min_max(data, width) } else { (None, None) };
        self.accessor(Accessor {
            buffer_view: None,
            byte_offset: 0,
            component_type: FLOAT,
            normalized: false,
            count,
            kind,
            min,
            max,
            sparse: Some(Sparse {
                count: indices.len(),
                indices: SparseIndices { buffer_view: index_view, component_type: index_type },
                values: SparseValues { buffer_view: value_view },
            }),
        })
    }

    /// Finishes the binary chunk (length a multiple of four).
    pub fn finish(mut self) -> (Vec<u8>, Vec<BufferView>, Vec<Accessor>) {
        self.align();
        (self.bin, self.views, self.accessors)
    }
}

/// Per-component min and max of `data` (width components per element).
pub fn min_max(data: &[f32], width: usize) -> (Option<Vec<f64>>, Option<Vec<f64>>) {
    let mut min = vec![f64::MAX; width];
    let mut max = vec![f64::MIN; width];
    for element in data.chunks_exact(width) {
        for (c, &v) in element.iter().enumerate() {
            min[c] = min[c].min(f64::from(v));
            max[c] = max[c].max(f64::from(v));
        }
    }
    (Some(min), Some(max))
}

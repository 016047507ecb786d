//! Upload of an imported model (`anim::Model`, the CPU side) into GPU buffers ([`GpuModel`]).

use anim::{Model, NodeId, Primitive};
use glam::{Vec2, Vec3, Vec4};
use wgpu::util::DeviceExt as _;

use crate::render::RenderError;
use crate::render::animated::emissive_uniform;
use crate::render::camera::Aabb;
use crate::render::framing::{CpuPoser, drawn_nodes, ground_height, is_triangle_mode, triangle_list_indices};
use crate::render::gpu_data::{ALPHA_BLEND, ALPHA_MASK, ALPHA_OPAQUE, GpuVertex, UV_IDENTITY};

/// One drawable primitive on the GPU.
#[derive(Debug)]
pub struct GpuPrimitive {
    /// Interleaved [`GpuVertex`] data.
    pub vertex_buffer: wgpu::Buffer,
    /// `u32` triangle-list indices.
    pub index_buffer: wgpu::Buffer,
    /// Number of indices.
    pub index_count: u32,
    /// Index into [`GpuModel::materials`].
    pub material: usize,
    /// First `vec4` of this primitive's morph deltas in [`GpuModel::morph_deltas`].
    pub morph_offset: u32,
    /// Number of morph targets.
    pub target_count: u32,
    /// Number of vertices.
    pub vertex_count: u32,
    /// 0 without joints, 4 with `JOINTS_0`, 8 with `JOINTS_1` too.
    pub influences: u32,
}

/// A mesh on the GPU: its drawable primitives (non-triangle ones are left out).
#[derive(Debug)]
pub struct GpuMesh {
    /// Primitives, by index into the CPU mesh's primitives (`None`: not drawn).
    pub primitives: Vec<Option<GpuPrimitive>>,
}

/// A material ready to draw.
#[derive(Debug)]
pub struct GpuMaterial {
    /// Linear RGBA base colour factor.
    pub base_color: Vec4,
    /// `KHR_texture_transform` of the base colour texture as two rows of a 2×3 matrix
    /// (identity without one), applied to the texture coordinates in the shader.
    pub uv_transform: [[f32; 4]; 2],
    /// `KHR_texture_transform` of the emissive texture, as `uv_transform`.
    pub emissive_uv_transform: [[f32; 4]; 2],
    /// Emitted light (linear RGB, factor × strength) and alpha cutoff, as
    /// [`crate::render::gpu_data::DrawUniforms::emissive`].
    pub emissive: [f32; 4],
    /// The alpha mode as [`crate::render::gpu_data::DrawUniforms::alpha_mode`].
    pub alpha_mode: u32,
    /// glTF `doubleSided`: both faces drawn; otherwise back faces are culled (the winding
    /// flipped for nodes that mirror). Primitives without a material are drawn double-sided.
    pub double_sided: bool,
    /// Base colour texture (sRGB), sampler and emissive texture (sRGB); a white texel for a
    /// texture the material does not have.
    pub bind_group: wgpu::BindGroup,
}

/// One draw of one instance: a primitive of a node's mesh.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DrawItem {
    /// The node.
    pub node: NodeId,
    /// Mesh index.
    pub mesh: usize,
    /// Primitive index in the mesh.
    pub primitive: usize,
}

/// Everything of a model that lives on the GPU and never changes between frames.
#[derive(Debug)]
pub struct GpuModel {
    /// Meshes, by model mesh index.
    pub meshes: Vec<GpuMesh>,
    /// Materials, by model material index, then the default material last.
    pub materials: Vec<GpuMaterial>,
    /// Morph deltas of every primitive: per target, per vertex, position delta then normal delta.
    pub morph_deltas: wgpu::Buffer,
    /// First palette entry of each skin within one instance's palette.
    pub skin_palette_offsets: Vec<u32>,
    /// Palette entries of one instance (all skins' joints).
    pub joints_per_instance: u32,
    /// Morph weights of one instance ([`Model::weight_count`]).
    pub weights_per_instance: u32,
    /// Draws of one instance, in order.
    pub draws: Vec<DrawItem>,
    /// Nodes with a mesh in the shown scene.
    pub drawn_nodes: Vec<NodeId>,
    /// Joint nodes of every skin, sorted ([`crate::render::overlay::joint_nodes`]).
    pub joint_nodes: Vec<NodeId>,
    /// Bounds of the rest pose (scale hint for the ground grid).
    pub rest_bounds: Aabb,
    /// The model's skins prepared for palettes (one per model skin).
    pub skins: Vec<anim::PreparedSkin>,
    /// Height (world y) of the ground plane: 0, or the lowest point the model reaches in its
    /// rest pose and clips when that is below 0 ([`ground_height`]), so models authored around
    /// the origin are not cut by the ground.
    pub ground_height: f32,
    /// Whether each node is drawn when no per-frame values are given: the authored
    /// `KHR_node_visibility`, inherited.
    pub node_visible: Vec<bool>,
}

impl GpuModel {
    /// Upload `model`: vertex and index buffers, morph deltas, textures.
    ///
    /// # Errors
    /// [`RenderError::ImageDecode`] when a base colour or emissive image cannot be decoded.
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        material_layout: &wgpu::BindGroupLayout,
        model: &Model,
    ) -> Result<Self, RenderError> {
        let mut deltas: Vec<[f32; 4]> = Vec::new();
        let meshes = model
            .meshes()
            .iter()
            .map(|mesh| GpuMesh {
                primitives: mesh.primitives.iter().map(|p| upload_primitive(device, model, p, &mut deltas)).collect(),
            })
            .collect();
        if deltas.is_empty() {
            deltas.push([0.0; 4]);
        }
        let morph_deltas = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("morph deltas"),
            contents: bytemuck::cast_slice(&deltas),
            usage: wgpu::BufferUsages::STORAGE,
        });

        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("base colour sampler"),
            address_mode_u: wgpu::AddressMode::Repeat,
            address_mode_v: wgpu::AddressMode::Repeat,
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            ..Default::default()
        });
        let mut textures: Vec<Option<wgpu::TextureView>> = vec![None; model.images.len()];
        let white = upload_texture(device, queue, &image::RgbaImage::from_pixel(1, 1, image::Rgba([255; 4])));
        let mut materials = Vec::with_capacity(model.materials().len() + 1);
        // Decoded and uploaded once per image, whichever materials and slots use it.
        let used = model.materials().iter().flat_map(|m| [m.base_color_texture, m.emissive_texture]).flatten();
        for texture in used {
            if texture.image < model.images.len() && textures[texture.image].is_none() {
                textures[texture.image] = Some(decode_and_upload(device, queue, model, texture.image)?);
            }
        }
        let view =
            |texture: Option<anim::TextureRef>| texture.and_then(|t| textures.get(t.image)?.as_ref()).unwrap_or(&white);
        let uv_rows = |texture: Option<anim::TextureRef>| {
            texture.and_then(|t| t.transform).map_or(UV_IDENTITY, |t| {
                let [r0, r1] = t.rows();
                [[r0[0], r0[1], r0[2], 0.0], [r1[0], r1[1], r1[2], 0.0]]
            })
        };
        for material in model.materials() {
            let (base_color_view, emissive_view) = (view(material.base_color_texture), view(material.emissive_texture));
            materials.push(GpuMaterial {
                base_color: material.base_color_factor,
                uv_transform: uv_rows(material.base_color_texture),
                emissive_uv_transform: uv_rows(material.emissive_texture),
                emissive: emissive_uniform(material.emissive_factor, material.emissive_strength, material.alpha_cutoff),
                alpha_mode: match material.alpha_mode {
                    anim::AlphaMode::Opaque => ALPHA_OPAQUE,
                    anim::AlphaMode::Mask => ALPHA_MASK,
                    anim::AlphaMode::Blend => ALPHA_BLEND,
                },
                double_sided: material.double_sided,
                bind_group: material_bind_group(device, material_layout, base_color_view, emissive_view, &sampler),
            });
        }
        materials.push(GpuMaterial {
            base_color: Vec4::ONE,
            uv_transform: UV_IDENTITY,
            emissive_uv_transform: UV_IDENTITY,
            emissive: [0.0; 4],
            alpha_mode: ALPHA_OPAQUE,
            double_sided: true,
            bind_group: material_bind_group(device, material_layout, &white, &white, &sampler),
        });

        let mut skin_palette_offsets = Vec::with_capacity(model.skins().len());
        let mut joints_per_instance = 0u32;
        for skin in model.skins() {
            skin_palette_offsets.push(joints_per_instance);
            joints_per_instance += skin.joints.len() as u32;
        }

        let nodes = drawn_nodes(model);
        let mut draws = Vec::new();
        for &node in &nodes {
            let Some(mesh_index) = model.node(node).and_then(|n| n.mesh) else { continue };
            let Some(mesh) = model.meshes().get(mesh_index) else { continue };
            for primitive in 0..mesh.primitives.len() {
                draws.push(DrawItem { node, mesh: mesh_index, primitive });
            }
        }
        let rest_bounds = CpuPoser::default().pose_bounds(model, &model.rest_pose(), &nodes);
        Ok(Self {
            meshes,
            materials,
            morph_deltas,
            skin_palette_offsets,
            joints_per_instance,
            weights_per_instance: model.weight_count as u32,
            draws,
            drawn_nodes: nodes,
            joint_nodes: crate::render::overlay::joint_nodes(model),
            rest_bounds,
            skins: model.skins().iter().map(anim::PreparedSkin::new).collect(),
            ground_height: ground_height(model),
            node_visible: crate::render::animated::AnimatedProperties::rest(model).node_visible,
        })
    }

    /// The GPU primitive of a draw, when it is drawable.
    pub fn primitive(&self, draw: DrawItem) -> Option<&GpuPrimitive> {
        self.meshes.get(draw.mesh)?.primitives.get(draw.primitive)?.as_ref()
    }
}

fn upload_primitive(
    device: &wgpu::Device,
    model: &Model,
    primitive: &Primitive,
    deltas: &mut Vec<[f32; 4]>,
) -> Option<GpuPrimitive> {
    if !is_triangle_mode(primitive.mode) || primitive.positions.is_empty() {
        return None;
    }
    let indices = triangle_list_indices(primitive);
    if indices.is_empty() {
        return None;
    }
    let joints =
        |set: usize, v: usize| primitive.joints.get(set).and_then(|j| j.get(v)).map_or([0; 4], |j| j.map(u32::from));
    let weights =
        |set: usize, v: usize| primitive.weights.get(set).and_then(|w| w.get(v)).map_or([0.0; 4], glam::Vec4::to_array);
    let vertices: Vec<GpuVertex> = (0..primitive.positions.len())
        .map(|v| GpuVertex {
            position: primitive.positions[v].to_array(),
            normal: primitive.normals.get(v).copied().unwrap_or(Vec3::ZERO).to_array(),
            texcoord: primitive.texcoords.get(v).copied().unwrap_or(Vec2::ZERO).to_array(),
            color: primitive.colors.get(v).copied().unwrap_or(Vec4::ONE).to_array(),
            joints0: joints(0, v),
            weights0: weights(0, v),
            joints1: joints(1, v),
            weights1: weights(1, v),
        })
        .collect();
    let morph_offset = deltas.len() as u32;
    for target in &primitive.targets {
        for v in 0..primitive.positions.len() {
            let dp = target.positions.get(v).copied().unwrap_or(Vec3::ZERO);
            let dn = target.normals.get(v).copied().unwrap_or(Vec3::ZERO);
            deltas.push(dp.extend(0.0).to_array());
            deltas.push(dn.extend(0.0).to_array());
        }
    }
    let influences = match (primitive.joints.len(), primitive.weights.len()) {
        (0, _) | (_, 0) => 0,
        (1, _) | (_, 1) => 4,
        _ => 8,
    };
    let material = primitive.material.filter(|&m| m < model.materials().len()).unwrap_or(model.materials().len());
    Some(GpuPrimitive {
        vertex_buffer: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("vertices"),
            contents: bytemuck::cast_slice(&vertices),
            usage: wgpu::BufferUsages::VERTEX,
        }),
        index_buffer: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("indices"),
            contents: bytemuck::cast_slice(&indices),
            usage: wgpu::BufferUsages::INDEX,
        }),
        index_count: indices.len() as u32,
        material,
        morph_offset,
        target_count: primitive.targets.len() as u32,
        vertex_count: primitive.positions.len() as u32,
        influences,
    })
}

fn decode_and_upload(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    model: &Model,
    image_index: usize,
) -> Result<wgpu::TextureView, RenderError> {
    let image_data = &model.images[image_index];
    let mime = image_data.mime_type.clone().unwrap_or_default();
    let limit = device.limits().max_texture_dimension_2d;
    let mut rgba = if mime == "image/ktx2" || decode::ktx2::is_ktx2(&image_data.bytes) {
        // KHR_texture_basisu: the largest mip level the device can hold, transcoded to RGBA8
        // (the importer already checked the container against its pixel limit).
        let max_pixels = u64::from(limit) * u64::from(limit);
        let decoded = decode::ktx2::decode_rgba8(&image_data.bytes, limit, max_pixels)
            .map_err(|source| RenderError::Ktx2Decode { image: image_index, source })?;
        let (width, height, level) = (decoded.width, decoded.height, decoded.level);
        image::RgbaImage::from_raw(width, height, decoded.pixels).ok_or_else(|| RenderError::Ktx2Decode {
            image: image_index,
            source: decode::ktx2::Ktx2Error::Transcode { level, reason: format!("not {width}×{height} RGBA8 pixels") },
        })?
    } else {
        let format = match mime.as_str() {
            "image/png" => Some(image::ImageFormat::Png),
            "image/jpeg" => Some(image::ImageFormat::Jpeg),
            "image/webp" => Some(image::ImageFormat::WebP),
            _ => None,
        };
        match format {
            Some(format) => image::load_from_memory_with_format(&image_data.bytes, format),
            None => image::load_from_memory(&image_data.bytes),
        }
        .map_err(|source| RenderError::ImageDecode { image: image_index, mime, source })?
        .to_rgba8()
    };
    if rgba.width() > limit || rgba.height() > limit {
        let scale = f64::from(limit) / f64::from(rgba.width().max(rgba.height()));
        let width = ((f64::from(rgba.width()) * scale) as u32).clamp(1, limit);
        let height = ((f64::from(rgba.height()) * scale) as u32).clamp(1, limit);
        rgba = image::imageops::resize(&rgba, width, height, image::imageops::FilterType::Triangle);
    }
    Ok(upload_texture(device, queue, &rgba))
}

/// Upload an sRGB RGBA8 image as a sampled texture.
fn upload_texture(device: &wgpu::Device, queue: &wgpu::Queue, rgba: &image::RgbaImage) -> wgpu::TextureView {
    let size = wgpu::Extent3d { width: rgba.width(), height: rgba.height(), depth_or_array_layers: 1 };
    let texture = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("base colour texture"),
        size,
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba8UnormSrgb,
        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        view_formats: &[],
    });
    queue.write_texture(
        wgpu::TexelCopyTextureInfo {
            texture: &texture,
            mip_level: 0,
            origin: wgpu::Origin3d::ZERO,
            aspect: wgpu::TextureAspect::All,
        },
        rgba.as_raw(),
        wgpu::TexelCopyBufferLayout { offset: 0, bytes_per_row: Some(4 * rgba.width()), rows_per_image: None },
        size,
    );
    texture.create_view(&wgpu::TextureViewDescriptor::default())
}

fn material_bind_group(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    base_color: &wgpu::TextureView,
    emissive: &wgpu::TextureView,
    sampler: &wgpu::Sampler,
) -> wgpu::BindGroup {
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("material"),
        layout,
        entries: &[
            wgpu::BindGroupEntry { binding: 0, resource: wgpu::BindingResource::TextureView(base_color) },
            wgpu::BindGroupEntry { binding: 1, resource: wgpu::BindingResource::Sampler(sampler) },
            wgpu::BindGroupEntry { binding: 2, resource: wgpu::BindingResource::TextureView(emissive) },
        ],
    })
}

//! Pipelines, per-frame GPU buffers and the drawing of one or more views (split viewports,
//! several posed instances per view, ghosts, ground, skeleton overlay).

use std::ops::Range;

use anim::{LocalMatrices, Model, SoaPose};
use glam::{Affine3A, Mat4, Vec2, Vec3};

use crate::render::camera::OrbitCamera;
use crate::render::device::GpuContext;
use crate::render::gpu_data::{
    ALPHA_BLEND, ALPHA_OPAQUE, DrawUniforms, GpuVertex, OverlayVertex, UNIFORM_SLOT_BYTES, UV_IDENTITY, ViewUniforms,
};
use crate::render::mesh::{DrawItem, GpuModel};
use crate::render::overlay::{OverlayLine, SkeletonLink, SkeletonStyle, push_lines, push_skeleton};
use crate::render::{RenderError, readback};

/// Colour format of render targets: sRGB, so shaders write linear colour and the stored bytes
/// are display-ready.
pub const COLOR_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;
/// Depth buffer format.
pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;
/// MSAA sample count.
pub const SAMPLE_COUNT: u32 = 4;

/// A rectangle of the target in pixels, origin top-left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Viewport {
    /// Left edge.
    pub x: u32,
    /// Top edge.
    pub y: u32,
    /// Width (> 0).
    pub width: u32,
    /// Height (> 0).
    pub height: u32,
}

impl Viewport {
    /// Width over height.
    pub fn aspect(&self) -> f32 {
        self.width as f32 / self.height.max(1) as f32
    }

    /// Split a `width`×`height` target into `count` side-by-side viewports of equal width.
    pub fn split_horizontally(width: u32, height: u32, count: u32) -> Vec<Self> {
        let count = count.max(1);
        (0..count)
            .map(|i| {
                let x = width * i / count;
                Self { x, y: 0, width: width * (i + 1) / count - x, height }
            })
            .collect()
    }
}

/// One model's views in a frame of several models ([`Renderer::render_layers`]).
#[derive(Debug, Clone, Copy)]
pub struct Layer<'a> {
    /// The model.
    pub model: &'a Model,
    /// Its upload.
    pub gpu: &'a GpuModel,
    /// What to draw of it.
    pub views: &'a [ViewDesc<'a>],
}

/// Many posed copies of one model in one viewport, drawn with GPU instancing.
#[derive(Debug, Clone, Copy)]
pub struct CrowdView<'a> {
    /// Where in the target.
    pub viewport: Viewport,
    /// The camera.
    pub camera: OrbitCamera,
    /// Number of instances.
    pub instances: u32,
    /// Skinning palettes, instance-major: each instance's skins concatenated in skin order
    /// (`palette_stride` matrices per instance), placement included.
    pub palettes: &'a [Mat4],
    /// Matrices per instance in `palettes` (the model's total skin joint count).
    pub palette_stride: u32,
    /// Model-space (placed) transforms of the nodes that carry a mesh, instance-major (the
    /// number of such nodes per instance, at least 1), for unskinned meshes and face culling.
    pub node_worlds: &'a [Affine3A],
    /// Per node of the model: its index among an instance's `node_worlds` (`None`: a node
    /// without a mesh, whose transform the crowd does not keep).
    pub node_slots: &'a [Option<u32>],
    /// Morph weights, instance-major (the model's weight count per instance).
    pub weights: &'a [f32],
    /// Draw the ground grid.
    pub ground: bool,
    /// Radius the ground grid must cover around the camera target.
    pub ground_radius: f32,
}

/// One posed copy of the model in a view.
#[derive(Debug, Clone, Copy)]
pub struct InstanceDesc<'a> {
    /// The pose (local transforms and morph weights).
    pub pose: &'a SoaPose,
    /// 1 for a solid model; below 1 draws a translucent ghost after the solid ones.
    pub opacity: f32,
    /// Tint colour (linear RGB) and how much of it replaces the lit colour (`[3]`).
    pub tint: [f32; 4],
    /// Heat per node in `[0, 1]` (indexed like the model's nodes), painted on the skinned mesh
    /// as a blue → red ramp blended by the skin weights; `None` draws the normal colours.
    pub joint_heat: Option<&'a [f32]>,
    /// The pose's model-space node transforms when the caller already has them (one per node;
    /// otherwise, or when the length is wrong, the renderer computes them from `pose`).
    pub model_from_node: Option<&'a [Affine3A]>,
    /// Animated material values and node visibility of this frame (`KHR_animation_pointer`);
    /// `None` draws the materials as authored and every node.
    pub properties: Option<&'a crate::render::animated::AnimatedProperties>,
}

impl<'a> InstanceDesc<'a> {
    /// A solid, untinted instance.
    pub fn solid(pose: &'a SoaPose) -> Self {
        Self { pose, opacity: 1.0, tint: [0.0; 4], joint_heat: None, model_from_node: None, properties: None }
    }

    /// A translucent blue-tinted ghost.
    pub fn ghost(pose: &'a SoaPose) -> Self {
        Self {
            pose,
            opacity: 0.4,
            tint: [0.25, 0.55, 1.0, 0.6],
            joint_heat: None,
            model_from_node: None,
            properties: None,
        }
    }
}

/// What one viewport shows.
#[derive(Debug, Clone)]
pub struct ViewDesc<'a> {
    /// Where in the target.
    pub viewport: Viewport,
    /// The camera.
    pub camera: OrbitCamera,
    /// Posed instances; the first one gets the contact shadow and the skeleton overlay.
    pub instances: Vec<InstanceDesc<'a>>,
    /// Draw the ground grid and contact shadow.
    pub ground: bool,
    /// Draw the skeleton overlay of the first instance.
    pub skeleton: bool,
    /// The highlighted joint.
    pub selected_joint: Option<anim::NodeId>,
    /// World-space lines drawn over everything (e.g. collider wireframes).
    pub lines: &'a [OverlayLine],
}

/// The textures one frame renders into: MSAA colour and depth, resolved into a single-sample
/// texture that can be copied out.
#[derive(Debug)]
pub struct RenderTarget {
    color_msaa: wgpu::TextureView,
    depth: wgpu::TextureView,
    resolve: wgpu::Texture,
    resolve_view: wgpu::TextureView,
    gamma_view: Option<wgpu::TextureView>,
}

impl RenderTarget {
    /// Allocate a target of `width`×`height` pixels.
    ///
    /// # Errors
    /// [`RenderError::InvalidSize`] for a zero size or one beyond the device's texture limit.
    pub fn new(device: &wgpu::Device, width: u32, height: u32) -> Result<Self, RenderError> {
        Self::with_views(device, width, height, false)
    }

    /// Like [`Self::new`], for a UI that samples the frame as a texture. With `gamma_view`, the
    /// resolved texture (sRGB-encoded bytes) is also viewable as plain `Rgba8Unorm` (see
    /// [`Self::ui_view`]), which is what a gamma-space UI renderer such as egui expects; pass it
    /// only when the adapter supports view formats (`DownlevelFlags::VIEW_FORMATS`).
    ///
    /// # Errors
    /// [`RenderError::InvalidSize`] for a zero size or one beyond the device's texture limit.
    pub fn with_views(device: &wgpu::Device, width: u32, height: u32, gamma_view: bool) -> Result<Self, RenderError> {
        let limit = device.limits().max_texture_dimension_2d;
        if width == 0 || height == 0 || width > limit || height > limit {
            return Err(RenderError::InvalidSize { width, height, limit });
        }
        let size = wgpu::Extent3d { width, height, depth_or_array_layers: 1 };
        let texture = |label, format, sample_count, usage, view_formats: &[wgpu::TextureFormat]| {
            device.create_texture(&wgpu::TextureDescriptor {
                label: Some(label),
                size,
                mip_level_count: 1,
                sample_count,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage,
                view_formats,
            })
        };
        let attachment = wgpu::TextureUsages::RENDER_ATTACHMENT;
        let color_msaa = texture("colour msaa", COLOR_FORMAT, SAMPLE_COUNT, attachment, &[]);
        let depth = texture("depth", DEPTH_FORMAT, SAMPLE_COUNT, attachment, &[]);
        let gamma_format = COLOR_FORMAT.remove_srgb_suffix();
        let gamma_formats = [gamma_format];
        let resolve = texture(
            "colour",
            COLOR_FORMAT,
            1,
            attachment | wgpu::TextureUsages::COPY_SRC | wgpu::TextureUsages::TEXTURE_BINDING,
            if gamma_view { &gamma_formats } else { &[] },
        );
        let view = |t: &wgpu::Texture| t.create_view(&wgpu::TextureViewDescriptor::default());
        let gamma_view = gamma_view.then(|| {
            resolve.create_view(&wgpu::TextureViewDescriptor {
                label: Some("colour as gamma"),
                format: Some(gamma_format),
                ..Default::default()
            })
        });
        Ok(Self {
            color_msaa: view(&color_msaa),
            depth: view(&depth),
            resolve_view: view(&resolve),
            gamma_view,
            resolve,
        })
    }

    /// The view a UI should sample: the plain `Rgba8Unorm` view of [`Self::with_views`] when it
    /// was asked for, else the sRGB view.
    pub fn ui_view(&self) -> &wgpu::TextureView {
        self.gamma_view.as_ref().unwrap_or(&self.resolve_view)
    }

    /// The resolved single-sample colour texture.
    pub fn texture(&self) -> &wgpu::Texture {
        &self.resolve
    }

    /// Size in pixels.
    pub fn size(&self) -> (u32, u32) {
        (self.resolve.width(), self.resolve.height())
    }
}

/// A GPU buffer that grows (by doubling) when more bytes are written than it holds.
#[derive(Debug)]
struct GrowBuffer {
    buffer: wgpu::Buffer,
    label: &'static str,
    usage: wgpu::BufferUsages,
}

impl GrowBuffer {
    fn new(device: &wgpu::Device, label: &'static str, usage: wgpu::BufferUsages) -> Self {
        let usage = usage | wgpu::BufferUsages::COPY_DST;
        Self { buffer: Self::create(device, label, usage, 1024), label, usage }
    }

    fn create(device: &wgpu::Device, label: &str, usage: wgpu::BufferUsages, size: u64) -> wgpu::Buffer {
        device.create_buffer(&wgpu::BufferDescriptor { label: Some(label), size, usage, mapped_at_creation: false })
    }

    fn write(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, bytes: &[u8]) {
        let needed = (bytes.len() as u64).max(256).next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT);
        if needed > self.buffer.size() {
            self.buffer = Self::create(device, self.label, self.usage, needed.next_power_of_two());
        }
        if !bytes.is_empty() {
            queue.write_buffer(&self.buffer, 0, bytes);
        }
    }
}

/// The pipelines a mesh draw goes through, in drawing order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DrawPass {
    /// Opaque and alpha-masked materials: depth written.
    Solid,
    /// `alphaMode` BLEND materials: after the solid draws, blended, depth tested not written.
    Blend,
    /// Translucent ghost instances: a depth pre-pass, then blended colour.
    Ghost,
}

impl DrawPass {
    /// The pass of a draw of `material` in an instance of `opacity`.
    fn of(material: Option<&crate::render::mesh::GpuMaterial>, opacity: f32) -> Self {
        if opacity < 1.0 {
            Self::Ghost
        } else if material.is_some_and(|m| m.alpha_mode == ALPHA_BLEND) {
            Self::Blend
        } else {
            Self::Solid
        }
    }
}

/// Which faces of a mesh draw are drawn: each [`DrawPass`] has one pipeline per value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Faces {
    /// Both (`doubleSided: true`).
    Both = 0,
    /// Front faces only, counter-clockwise (glTF's winding).
    Front = 1,
    /// Front faces only, clockwise: a node whose transform mirrors (negative determinant) turns
    /// its triangles' winding over.
    FrontMirrored = 2,
}

impl Faces {
    /// Every value, in pipeline-array order.
    const ALL: [Self; 3] = [Self::Both, Self::Front, Self::FrontMirrored];

    /// The faces drawn for `material` placed by `world_from_mesh`.
    fn of(material: Option<&crate::render::mesh::GpuMaterial>, world_from_mesh: &Mat4) -> Self {
        if material.is_none_or(|m| m.double_sided) {
            Self::Both
        } else if world_from_mesh.determinant() < 0.0 {
            Self::FrontMirrored
        } else {
            Self::Front
        }
    }

    /// The pipeline state for these faces.
    fn cull(self) -> (Option<wgpu::Face>, wgpu::FrontFace) {
        match self {
            Self::Both => (None, wgpu::FrontFace::Ccw),
            Self::Front => (Some(wgpu::Face::Back), wgpu::FrontFace::Ccw),
            Self::FrontMirrored => (Some(wgpu::Face::Back), wgpu::FrontFace::Cw),
        }
    }
}

/// One mesh draw of the frame.
#[derive(Debug, Clone, Copy)]
struct DrawCommand {
    slot: u32,
    item: DrawItem,
    pass: DrawPass,
    faces: Faces,
    /// Instances drawn (crowds: all of them in one call).
    instances: u32,
}

/// Per-view draw lists of the frame.
#[derive(Debug)]
struct ViewCommands {
    viewport: super::Viewport,
    ground: bool,
    draws: Range<usize>,
    overlay: Range<u32>,
}

/// Pipelines and per-frame buffers. One renderer draws any number of models and views.
#[derive(Debug)]
pub struct Renderer {
    view_layout: wgpu::BindGroupLayout,
    draw_layout: wgpu::BindGroupLayout,
    material_layout: wgpu::BindGroupLayout,
    /// The mesh pipelines per [`Faces`] value (index `faces as usize`).
    mesh_pipelines: [wgpu::RenderPipeline; 3],
    blend_pipelines: [wgpu::RenderPipeline; 3],
    ghost_depth_pipelines: [wgpu::RenderPipeline; 3],
    ghost_pipelines: [wgpu::RenderPipeline; 3],
    ground_pipeline: wgpu::RenderPipeline,
    overlay_pipeline: wgpu::RenderPipeline,
    view_uniforms: GrowBuffer,
    draw_uniforms: GrowBuffer,
    palette: GrowBuffer,
    heat: GrowBuffer,
    weights: GrowBuffer,
    overlay: GrowBuffer,
    /// Clear colour (linear).
    pub clear_color: wgpu::Color,
    /// Look of the skeleton overlay.
    pub skeleton_style: SkeletonStyle,
    /// Per node, where its skeleton-overlay bone starts ([`SkeletonLink`]); empty (the default):
    /// the node tree. A ragdoll sets its body tree here.
    pub skeleton_links: Vec<SkeletonLink>,
    // Scratch, reused between frames.
    locals: LocalMatrices,
    model_from_node: Vec<Affine3A>,
    palette_data: Vec<Mat4>,
    palette_upload: Vec<[f32; 16]>,
    heat_data: Vec<f32>,
    weight_data: Vec<f32>,
    view_bytes: Vec<u8>,
    draw_bytes: Vec<u8>,
    overlay_data: Vec<OverlayVertex>,
    commands: Vec<DrawCommand>,
    view_commands: Vec<ViewCommands>,
}

fn uniform_entry(binding: u32, visibility: wgpu::ShaderStages) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: true,
            min_binding_size: None,
        },
        count: None,
    }
}

fn storage_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::VERTEX,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only: true },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

impl Renderer {
    /// Build the pipelines for [`COLOR_FORMAT`] targets on `device`.
    pub fn new(device: &wgpu::Device) -> Self {
        let both = wgpu::ShaderStages::VERTEX_FRAGMENT;
        let view_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("view"),
            entries: &[uniform_entry(0, both), storage_entry(1), storage_entry(2), storage_entry(3), storage_entry(4)],
        });
        let draw_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("draw"),
            entries: &[uniform_entry(0, both)],
        });
        let texture_entry = |binding| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::FRAGMENT,
            ty: wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Float { filterable: true },
                view_dimension: wgpu::TextureViewDimension::D2,
                multisampled: false,
            },
            count: None,
        };
        // Base colour texture, sampler, emissive texture.
        let material_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("material"),
            entries: &[
                texture_entry(0),
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                    count: None,
                },
                texture_entry(2),
            ],
        });
        let shader = |label, source: &'static str| {
            device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(label),
                source: wgpu::ShaderSource::Wgsl(source.into()),
            })
        };
        let mesh_shader = shader("mesh.wgsl", include_str!("../../shaders/mesh.wgsl"));
        let ground_shader = shader("ground.wgsl", include_str!("../../shaders/ground.wgsl"));
        let overlay_shader = shader("overlay.wgsl", include_str!("../../shaders/overlay.wgsl"));
        let layout = |label, groups: &[Option<&wgpu::BindGroupLayout>]| {
            device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(label),
                bind_group_layouts: groups,
                immediate_size: 0,
            })
        };
        let mesh_layout = layout("mesh", &[Some(&view_layout), Some(&draw_layout), Some(&material_layout)]);
        let ground_layout = layout("ground", &[Some(&view_layout)]);
        let overlay_layout = layout("overlay", &[]);

        let vertex_attributes = wgpu::vertex_attr_array![
            0 => Float32x3, 1 => Float32x3, 2 => Float32x2, 3 => Float32x4,
            4 => Uint32x4, 5 => Float32x4, 6 => Uint32x4, 7 => Float32x4
        ];
        let mesh_buffers = [Some(wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<GpuVertex>() as u64,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &vertex_attributes,
        })];
        let overlay_attributes = wgpu::vertex_attr_array![0 => Float32x4, 1 => Float32x4, 2 => Float32x2];
        let overlay_buffers = [Some(wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<OverlayVertex>() as u64,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &overlay_attributes,
        })];

        let pipeline = |label,
                        layout: &wgpu::PipelineLayout,
                        module: &wgpu::ShaderModule,
                        buffers: &[Option<wgpu::VertexBufferLayout<'_>>],
                        depth_write: bool,
                        depth_compare: wgpu::CompareFunction,
                        write_color: bool,
                        faces: Faces| {
            let (cull_mode, front_face) = faces.cull();
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(layout),
                vertex: wgpu::VertexState {
                    module,
                    entry_point: Some("vs_main"),
                    compilation_options: wgpu::PipelineCompilationOptions::default(),
                    buffers,
                },
                primitive: wgpu::PrimitiveState {
                    topology: wgpu::PrimitiveTopology::TriangleList,
                    cull_mode,
                    front_face,
                    ..Default::default()
                },
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: DEPTH_FORMAT,
                    depth_write_enabled: Some(depth_write),
                    depth_compare: Some(depth_compare),
                    stencil: wgpu::StencilState::default(),
                    // Ghosts sit a hair behind coincident solid surfaces (no z-fighting where the
                    // two poses agree); both ghost passes share the bias, so they still match.
                    bias: if label == "ghost" || label == "ghost depth" {
                        wgpu::DepthBiasState { constant: 8, slope_scale: 1.5, clamp: 0.0 }
                    } else {
                        wgpu::DepthBiasState::default()
                    },
                }),
                multisample: wgpu::MultisampleState { count: SAMPLE_COUNT, ..Default::default() },
                fragment: Some(wgpu::FragmentState {
                    module,
                    entry_point: Some("fs_main"),
                    compilation_options: wgpu::PipelineCompilationOptions::default(),
                    targets: &[Some(wgpu::ColorTargetState {
                        format: COLOR_FORMAT,
                        blend: Some(wgpu::BlendState::ALPHA_BLENDING),
                        write_mask: if write_color { wgpu::ColorWrites::ALL } else { wgpu::ColorWrites::empty() },
                    })],
                }),
                multiview_mask: None,
                cache: None,
            })
        };
        use wgpu::CompareFunction::{Always, Less, LessEqual};
        let each = |make: &dyn Fn(Faces) -> wgpu::RenderPipeline| Faces::ALL.map(make);
        let mesh_pipelines =
            each(&|f| pipeline("mesh", &mesh_layout, &mesh_shader, &mesh_buffers, true, Less, true, f));
        // BLEND materials: behind-or-in-front tested against the solid draws, depth not written,
        // so translucent surfaces do not hide each other.
        let blend_pipelines =
            each(&|f| pipeline("blend", &mesh_layout, &mesh_shader, &mesh_buffers, false, Less, true, f));
        // Ghosts: a depth-only pass first, then colour where the depth matches, so each pixel
        // blends only the nearest ghost surface (no inner faces showing through).
        let ghost_depth_pipelines =
            each(&|f| pipeline("ghost depth", &mesh_layout, &mesh_shader, &mesh_buffers, true, Less, false, f));
        let ghost_pipelines =
            each(&|f| pipeline("ghost", &mesh_layout, &mesh_shader, &mesh_buffers, false, LessEqual, true, f));
        let ground_pipeline = pipeline("ground", &ground_layout, &ground_shader, &[], true, Less, true, Faces::Both);
        let overlay_pipeline =
            pipeline("overlay", &overlay_layout, &overlay_shader, &overlay_buffers, false, Always, true, Faces::Both);

        let uniform = wgpu::BufferUsages::UNIFORM;
        let storage = wgpu::BufferUsages::STORAGE;
        Self {
            view_uniforms: GrowBuffer::new(device, "view uniforms", uniform),
            draw_uniforms: GrowBuffer::new(device, "draw uniforms", uniform),
            palette: GrowBuffer::new(device, "joint palette", storage),
            heat: GrowBuffer::new(device, "joint heat", storage),
            weights: GrowBuffer::new(device, "morph weights", storage),
            overlay: GrowBuffer::new(device, "overlay vertices", wgpu::BufferUsages::VERTEX),
            view_layout,
            draw_layout,
            material_layout,
            mesh_pipelines,
            blend_pipelines,
            ghost_depth_pipelines,
            ghost_pipelines,
            ground_pipeline,
            overlay_pipeline,
            clear_color: wgpu::Color { r: 0.045, g: 0.05, b: 0.06, a: 1.0 },
            skeleton_style: SkeletonStyle::default(),
            skeleton_links: Vec::new(),
            locals: LocalMatrices::default(),
            model_from_node: Vec::new(),
            palette_data: Vec::new(),
            palette_upload: Vec::new(),
            heat_data: Vec::new(),
            weight_data: Vec::new(),
            view_bytes: Vec::new(),
            draw_bytes: Vec::new(),
            overlay_data: Vec::new(),
            commands: Vec::new(),
            view_commands: Vec::new(),
        }
    }

    /// Upload a model for drawing with this renderer.
    ///
    /// # Errors
    /// [`RenderError::ImageDecode`] when a texture cannot be decoded.
    pub fn upload(&self, ctx: &GpuContext, model: &Model) -> Result<GpuModel, RenderError> {
        GpuModel::new(&ctx.device, &ctx.queue, &self.material_layout, model)
    }

    /// Draw `views` of `model` into `target` (cleared first) and submit.
    pub fn render(
        &mut self,
        ctx: &GpuContext,
        model: &Model,
        gpu: &GpuModel,
        views: &[ViewDesc<'_>],
        target: &RenderTarget,
    ) {
        self.prepare(model, gpu, views);
        self.submit(ctx, gpu, target, (true, true));
    }

    /// Draw several models into `target` in one frame, each layer over the ones before (the
    /// target cleared before the first; depth kept between layers, so a later layer's ghost
    /// blends over an earlier layer's solid model): two files side by side or one as a ghost
    /// over the other. Each layer's views are drawn as [`Self::render`] draws them; leave the
    /// ground out of a later layer's view that covers an earlier one's.
    pub fn render_layers(&mut self, ctx: &GpuContext, layers: &[Layer<'_>], target: &RenderTarget) {
        for (i, layer) in layers.iter().enumerate() {
            self.prepare(layer.model, layer.gpu, layer.views);
            self.submit(ctx, layer.gpu, target, (i == 0, i + 1 == layers.len()));
        }
    }

    /// Draw a crowd: one instanced draw per skinned primitive for all of `crowd`'s instances
    /// (palettes and morph weights read at `instance × stride` on the GPU), unskinned
    /// primitives once per instance. No skeleton overlay or contact shadow.
    pub fn render_crowd(
        &mut self,
        ctx: &GpuContext,
        model: &Model,
        gpu: &GpuModel,
        crowd: &CrowdView<'_>,
        target: &RenderTarget,
    ) {
        self.prepare_crowd(model, gpu, crowd);
        self.submit(ctx, gpu, target, (true, true));
    }

    /// Upload the prepared frame and encode its passes.
    /// Upload the prepared frame and draw it; `(first, last)`: whether this pass clears the
    /// target, and whether later passes still need its multisampled colour and depth.
    fn submit(&mut self, ctx: &GpuContext, gpu: &GpuModel, target: &RenderTarget, (first, last): (bool, bool)) {
        let keep = if last { wgpu::StoreOp::Discard } else { wgpu::StoreOp::Store };
        self.palette_upload.clear();
        self.palette_upload.extend(self.palette_data.iter().map(Mat4::to_cols_array));
        let (device, queue) = (&ctx.device, &ctx.queue);
        self.view_uniforms.write(device, queue, &self.view_bytes);
        self.draw_uniforms.write(device, queue, &self.draw_bytes);
        self.palette.write(device, queue, bytemuck::cast_slice(&self.palette_upload));
        self.heat.write(device, queue, bytemuck::cast_slice(&self.heat_data));
        self.weights.write(device, queue, bytemuck::cast_slice(&self.weight_data));
        self.overlay.write(device, queue, bytemuck::cast_slice(&self.overlay_data));

        let view_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("view"),
            layout: &self.view_layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: uniform_binding(&self.view_uniforms.buffer, std::mem::size_of::<ViewUniforms>()),
                },
                wgpu::BindGroupEntry { binding: 1, resource: self.palette.buffer.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 2, resource: self.weights.buffer.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 3, resource: gpu.morph_deltas.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 4, resource: self.heat.buffer.as_entire_binding() },
            ],
        });
        let draw_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("draw"),
            layout: &self.draw_layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: uniform_binding(&self.draw_uniforms.buffer, std::mem::size_of::<DrawUniforms>()),
            }],
        });

        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("frame") });
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("frame"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &target.color_msaa,
                    depth_slice: None,
                    resolve_target: Some(&target.resolve_view),
                    ops: wgpu::Operations {
                        load: if first { wgpu::LoadOp::Clear(self.clear_color) } else { wgpu::LoadOp::Load },
                        store: keep,
                    },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &target.depth,
                    depth_ops: Some(wgpu::Operations {
                        load: if first { wgpu::LoadOp::Clear(1.0) } else { wgpu::LoadOp::Load },
                        store: keep,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            let (target_width, target_height) = target.size();
            for (view_index, view) in self.view_commands.iter().enumerate() {
                let vp = view.viewport;
                let x = vp.x.min(target_width);
                let y = vp.y.min(target_height);
                let width = vp.width.min(target_width - x);
                let height = vp.height.min(target_height - y);
                if width == 0 || height == 0 {
                    continue;
                }
                pass.set_viewport(x as f32, y as f32, width as f32, height as f32, 0.0, 1.0);
                pass.set_scissor_rect(x, y, width, height);
                let view_offset = (view_index as u64 * UNIFORM_SLOT_BYTES) as u32;
                pass.set_bind_group(0, &view_group, &[view_offset]);
                if view.ground {
                    pass.set_pipeline(&self.ground_pipeline);
                    pass.draw(0..6, 0..1);
                }
                let phases = [
                    (DrawPass::Solid, &self.mesh_pipelines),
                    (DrawPass::Blend, &self.blend_pipelines),
                    (DrawPass::Ghost, &self.ghost_depth_pipelines),
                    (DrawPass::Ghost, &self.ghost_pipelines),
                ];
                for (draw_pass, pipelines) in phases {
                    let mut bound = None;
                    for command in &self.commands[view.draws.clone()] {
                        if command.pass != draw_pass {
                            continue;
                        }
                        if bound != Some(command.faces) {
                            pass.set_pipeline(&pipelines[command.faces as usize]);
                            bound = Some(command.faces);
                        }
                        let Some(primitive) = gpu.primitive(command.item) else { continue };
                        let Some(material) = gpu.materials.get(primitive.material) else { continue };
                        let draw_offset = (u64::from(command.slot) * UNIFORM_SLOT_BYTES) as u32;
                        pass.set_bind_group(1, &draw_group, &[draw_offset]);
                        pass.set_bind_group(2, &material.bind_group, &[]);
                        pass.set_vertex_buffer(0, primitive.vertex_buffer.slice(..));
                        pass.set_index_buffer(primitive.index_buffer.slice(..), wgpu::IndexFormat::Uint32);
                        pass.draw_indexed(0..primitive.index_count, 0, 0..command.instances);
                    }
                }
                if !view.overlay.is_empty() {
                    pass.set_pipeline(&self.overlay_pipeline);
                    pass.set_vertex_buffer(0, self.overlay.buffer.slice(..));
                    pass.draw(view.overlay.clone(), 0..1);
                }
            }
            // The GL backend resolves the multisampled target at the end of the pass with a
            // blit that honours the scissor still set: left at the last view's rectangle, every
            // other view stayed unresolved (empty) in split views. Reset it to the whole target.
            pass.set_scissor_rect(0, 0, target_width, target_height);
        }
        queue.submit([encoder.finish()]);
    }

    /// Render `views` into a new `width`×`height` target and read it back as sRGB RGBA8.
    ///
    /// # Errors
    /// [`RenderError::InvalidSize`] or [`RenderError::Readback`].
    pub fn render_to_image(
        &mut self,
        ctx: &GpuContext,
        model: &Model,
        gpu: &GpuModel,
        views: &[ViewDesc<'_>],
        width: u32,
        height: u32,
    ) -> Result<image::RgbaImage, RenderError> {
        let target = RenderTarget::new(&ctx.device, width, height)?;
        self.render(ctx, model, gpu, views, &target);
        readback::read_rgba8(&ctx.device, &ctx.queue, target.texture())
    }

    /// Empty the per-frame scratch (capacity kept).
    fn clear_frame(&mut self) {
        self.palette_data.clear();
        self.heat_data.clear();
        self.weight_data.clear();
        self.view_bytes.clear();
        self.draw_bytes.clear();
        self.overlay_data.clear();
        self.commands.clear();
        self.view_commands.clear();
    }

    /// CPU work of a frame: palettes, weights, uniforms, overlay vertices.
    fn prepare(&mut self, model: &Model, gpu: &GpuModel, views: &[ViewDesc<'_>]) {
        self.clear_frame();
        self.model_from_node.resize(model.nodes().len(), Affine3A::IDENTITY);
        let rest_radius = gpu.rest_bounds.radius().max(1e-3);

        for view in views {
            let clip_from_world = view.camera.clip_from_world(view.viewport.aspect());
            let draws_start = self.commands.len();
            let overlay_start = self.overlay_data.len() as u32;
            let mut blob = [0.0; 4];
            for (instance_index, instance) in view.instances.iter().enumerate() {
                if instance.pose.len() != model.nodes().len() {
                    continue;
                }
                match instance.model_from_node.filter(|m| m.len() == model.nodes().len()) {
                    Some(computed) => self.model_from_node.copy_from_slice(computed),
                    None => model.hierarchy.local_to_model(instance.pose, &mut self.locals, &mut self.model_from_node),
                }
                let palette_base = self.palette_data.len() as u32;
                for (skin, model_skin) in gpu.skins.iter().zip(model.skins()) {
                    let start = self.palette_data.len();
                    self.palette_data.resize(start + model_skin.joints.len(), Mat4::IDENTITY);
                    // Entries past the skin's inverse binds (the prepared skin drops them) stay identity.
                    let end = start + skin.len();
                    skin.skinning_matrices(&self.model_from_node, &mut self.palette_data[start..end]);
                    let heat = |node: &anim::NodeId| {
                        instance.joint_heat.and_then(|h| h.get(node.index())).copied().unwrap_or(0.0)
                    };
                    self.heat_data.extend(model_skin.joints.iter().map(heat));
                }
                let weights_base = self.weight_data.len() as u32;
                self.weight_data.extend_from_slice(instance.pose.weights());
                self.weight_data.resize(weights_base as usize + gpu.weights_per_instance as usize, 0.0);

                if instance_index == 0 {
                    if view.ground {
                        blob = self.contact_blob(gpu, rest_radius);
                    }
                    if view.skeleton {
                        let viewport_px = Vec2::new(view.viewport.width as f32, view.viewport.height as f32);
                        push_skeleton(
                            model,
                            &gpu.joint_nodes,
                            &self.model_from_node,
                            clip_from_world,
                            viewport_px,
                            view.selected_joint,
                            &self.skeleton_style,
                            &self.skeleton_links,
                            &mut self.overlay_data,
                        );
                    }
                }
                for &item in &gpu.draws {
                    let Some(primitive) = gpu.primitive(item) else { continue };
                    let visible = instance.properties.map_or(&gpu.node_visible, |p| &p.node_visible);
                    if visible.get(item.node.index()) == Some(&false) {
                        continue;
                    }
                    let node = &model[item.node];
                    let world_from_mesh = Mat4::from(self.model_from_node[item.node.index()]);
                    let skin = node.skin.filter(|&s| s < model.skins().len());
                    let influences = if skin.is_some() { primitive.influences } else { 0 };
                    let material = gpu.materials.get(primitive.material);
                    // This frame's animated values of a model material (not of the default one).
                    let animated = instance.properties.filter(|_| primitive.material < model.materials().len());
                    let uniforms = DrawUniforms {
                        world_from_mesh: world_from_mesh.to_cols_array_2d(),
                        normal_from_mesh: world_from_mesh.inverse().transpose().to_cols_array_2d(),
                        base_color: match animated {
                            Some(p) => p.base_color[primitive.material].to_array(),
                            None => material.map_or([1.0; 4], |m| m.base_color.to_array()),
                        },
                        uv_transform: match animated {
                            Some(p) => p.uv_rows(primitive.material),
                            None => material.map_or(UV_IDENTITY, |m| m.uv_transform),
                        },
                        emissive_uv_transform: material.map_or(UV_IDENTITY, |m| m.emissive_uv_transform),
                        tint: instance.tint,
                        emissive: match animated {
                            Some(p) => p.emissive_uniform(primitive.material),
                            None => material.map_or([0.0; 4], |m| m.emissive),
                        },
                        palette_offset: palette_base + skin.map_or(0, |s| gpu.skin_palette_offsets[s]),
                        joint_count: skin.map_or(0, |s| model.skins()[s].joints.len() as u32),
                        influences,
                        morph_target_count: primitive.target_count.min(node.rest_weights.len() as u32),
                        morph_offset: primitive.morph_offset,
                        morph_vertex_count: primitive.vertex_count,
                        weights_offset: weights_base + node.weights_offset as u32,
                        opacity: instance.opacity,
                        heat: u32::from(instance.joint_heat.is_some() && skin.is_some()),
                        palette_stride: 0,
                        weights_stride: 0,
                        alpha_mode: material.map_or(ALPHA_OPAQUE, |m| m.alpha_mode),
                    };
                    let slot = (self.draw_bytes.len() as u64 / UNIFORM_SLOT_BYTES) as u32;
                    push_slot(&mut self.draw_bytes, bytemuck::bytes_of(&uniforms));
                    let pass = DrawPass::of(material, instance.opacity);
                    let faces = Faces::of(material, &mirror_of(model, item, skin, &self.model_from_node));
                    self.commands.push(DrawCommand { slot, item, pass, faces, instances: 1 });
                }
            }
            if !view.lines.is_empty() {
                let viewport_px = Vec2::new(view.viewport.width as f32, view.viewport.height as f32);
                push_lines(view.lines, clip_from_world, viewport_px, 1.5, &mut self.overlay_data);
            }
            let uniforms = view_uniforms(&view.camera, clip_from_world, blob, rest_radius, gpu.ground_height);
            push_slot(&mut self.view_bytes, bytemuck::bytes_of(&uniforms));
            self.view_commands.push(ViewCommands {
                viewport: view.viewport,
                ground: view.ground,
                draws: draws_start..self.commands.len(),
                overlay: overlay_start..self.overlay_data.len() as u32,
            });
        }
        // Storage bindings must not be empty.
        if self.palette_data.is_empty() {
            self.palette_data.push(Mat4::IDENTITY);
        }
        if self.heat_data.is_empty() {
            self.heat_data.push(0.0);
        }
        if self.weight_data.is_empty() {
            self.weight_data.push(0.0);
        }
    }

    /// CPU work of a crowd frame: the caller's palettes and weights, one instanced draw per
    /// skinned primitive, one draw per instance for unskinned ones.
    fn prepare_crowd(&mut self, model: &Model, gpu: &GpuModel, crowd: &CrowdView<'_>) {
        self.clear_frame();
        let world_stride = crowd.node_slots.iter().flatten().count().max(1);
        let instances = (crowd.instances as usize)
            .min(crowd.palettes.len() / (crowd.palette_stride as usize).max(1))
            .min(crowd.node_worlds.len() / world_stride);
        let node_world = |instance: usize, node: anim::NodeId| {
            let slot = crowd.node_slots.get(node.index()).copied().flatten()?;
            crowd.node_worlds.get(instance * world_stride + slot as usize).copied()
        };
        let stride = crowd.palette_stride as usize;
        self.palette_data.extend_from_slice(&crowd.palettes[..instances * stride]);
        let weights_stride = model.weight_count;
        self.weight_data.extend_from_slice(&crowd.weights[..(instances * weights_stride).min(crowd.weights.len())]);
        for &item in &gpu.draws {
            let Some(primitive) = gpu.primitive(item) else { continue };
            let node = &model[item.node];
            let skin = node.skin.filter(|&s| s < model.skins().len());
            let material = gpu.materials.get(primitive.material);
            let uniforms = |world_from_mesh: Mat4, skinned: bool, instance: usize| DrawUniforms {
                world_from_mesh: world_from_mesh.to_cols_array_2d(),
                normal_from_mesh: world_from_mesh.inverse().transpose().to_cols_array_2d(),
                base_color: material.map_or([1.0; 4], |m| m.base_color.to_array()),
                uv_transform: material.map_or(UV_IDENTITY, |m| m.uv_transform),
                emissive_uv_transform: material.map_or(UV_IDENTITY, |m| m.emissive_uv_transform),
                tint: [0.0; 4],
                emissive: material.map_or([0.0; 4], |m| m.emissive),
                palette_offset: skin.map_or(0, |s| gpu.skin_palette_offsets[s]),
                joint_count: skin.map_or(0, |s| model.skins()[s].joints.len() as u32),
                influences: if skinned { primitive.influences } else { 0 },
                morph_target_count: primitive.target_count.min(node.rest_weights.len() as u32),
                morph_offset: primitive.morph_offset,
                morph_vertex_count: primitive.vertex_count,
                weights_offset: (instance * weights_stride + node.weights_offset) as u32,
                opacity: 1.0,
                heat: 0,
                palette_stride: if skinned { crowd.palette_stride } else { 0 },
                weights_stride: if skinned { weights_stride as u32 } else { 0 },
                alpha_mode: material.map_or(ALPHA_OPAQUE, |m| m.alpha_mode),
            };
            if skin.is_some() && primitive.influences > 0 {
                let slot = (self.draw_bytes.len() as u64 / UNIFORM_SLOT_BYTES) as u32;
                push_slot(&mut self.draw_bytes, bytemuck::bytes_of(&uniforms(Mat4::IDENTITY, true, 0)));
                let pass = DrawPass::of(material, 1.0);
                let world = node_world(0, item.node).unwrap_or_default();
                let faces = Faces::of(material, &Mat4::from(world));
                self.commands.push(DrawCommand { slot, item, pass, faces, instances: instances as u32 });
            } else {
                for instance in 0..instances {
                    let world = node_world(instance, item.node).unwrap_or_default();
                    let slot = (self.draw_bytes.len() as u64 / UNIFORM_SLOT_BYTES) as u32;
                    push_slot(&mut self.draw_bytes, bytemuck::bytes_of(&uniforms(Mat4::from(world), false, instance)));
                    let (pass, faces) = (DrawPass::of(material, 1.0), Faces::of(material, &Mat4::from(world)));
                    self.commands.push(DrawCommand { slot, item, pass, faces, instances: 1 });
                }
            }
        }
        let clip_from_world = crowd.camera.clip_from_world(crowd.viewport.aspect());
        let uniforms =
            view_uniforms(&crowd.camera, clip_from_world, [0.0; 4], crowd.ground_radius.max(1e-3), gpu.ground_height);
        push_slot(&mut self.view_bytes, bytemuck::bytes_of(&uniforms));
        self.view_commands.push(ViewCommands {
            viewport: crowd.viewport,
            ground: crowd.ground,
            draws: 0..self.commands.len(),
            overlay: 0..0,
        });
        if self.palette_data.is_empty() {
            self.palette_data.push(Mat4::IDENTITY);
        }
        self.heat_data.push(0.0);
        if self.weight_data.is_empty() {
            self.weight_data.push(0.0);
        }
    }

    /// Contact shadow under the current pose (in `model_from_node`): centred under the joints
    /// (or the mesh nodes of an unskinned model), sized by their horizontal spread.
    fn contact_blob(&self, gpu: &GpuModel, rest_radius: f32) -> [f32; 4] {
        let nodes = if gpu.joint_nodes.is_empty() { &gpu.drawn_nodes } else { &gpu.joint_nodes };
        let mut min = Vec2::INFINITY;
        let mut max = Vec2::NEG_INFINITY;
        for &node in nodes {
            let Some(m) = self.model_from_node.get(node.index()) else { continue };
            let p = Vec2::new(m.translation.x, m.translation.z);
            if p.is_finite() {
                min = min.min(p);
                max = max.max(p);
            }
        }
        if !min.is_finite() {
            let c = gpu.rest_bounds.center();
            return [c.x, c.z, rest_radius * 0.5, 0.5];
        }
        let center = (min + max) * 0.5;
        let radius = ((max - min).max_element() * 0.6).clamp(rest_radius * 0.25, rest_radius * 0.9);
        [center.x, center.y, radius, 0.8]
    }
}

/// Append one 256-byte uniform slot holding `bytes`.
/// The transform whose determinant says whether a draw is mirrored: the node's for a rigid
/// mesh; for a skinned one (glTF ignores the node's transform) its first joint's skinning
/// matrix (the joint's world transform times its inverse bind matrix).
fn mirror_of(model: &Model, item: DrawItem, skin: Option<usize>, model_from_node: &[Affine3A]) -> Mat4 {
    let skinned = skin.and_then(|s| model.skins().get(s)).and_then(|skin| {
        let joint = skin.joints.first()?;
        let world = model_from_node.get(joint.index())?;
        let bind = skin.inverse_bind_matrices.first().copied().unwrap_or(Mat4::IDENTITY);
        Some(Mat4::from(*world) * bind)
    });
    skinned.unwrap_or_else(|| model_from_node.get(item.node.index()).map_or(Mat4::IDENTITY, |w| Mat4::from(*w)))
}

fn push_slot(out: &mut Vec<u8>, bytes: &[u8]) {
    let start = out.len();
    out.extend_from_slice(bytes);
    out.resize(start + UNIFORM_SLOT_BYTES as usize, 0);
}

/// Lights follow the camera (key light from the viewer's upper left) so every view is lit.
fn view_uniforms(
    camera: &OrbitCamera,
    clip_from_world: Mat4,
    blob: [f32; 4],
    rest_radius: f32,
    ground_height: f32,
) -> ViewUniforms {
    let (right, _) = camera.right_up();
    let toward_eye = camera.eye_direction() * Vec3::new(1.0, 0.0, 1.0);
    let light_dir = (toward_eye.normalize_or_zero() * 0.8 - right * 0.6 + Vec3::Y * 1.3).normalize();
    let eye = camera.eye();
    let cell = 10f32.powf((rest_radius * 2.0).log10().floor()) * 0.25;
    ViewUniforms {
        clip_from_world: clip_from_world.to_cols_array_2d(),
        eye_world: eye.extend(1.0).to_array(),
        light_dir_world: light_dir.extend(0.0).to_array(),
        light_color: [0.9, 0.86, 0.8, 1.0],
        sky_color: [0.26, 0.29, 0.36, 1.0],
        ground_color: [0.10, 0.09, 0.08, 1.0],
        blob,
        grid: [cell, rest_radius * 5.0, camera.target.x, camera.target.z],
        ground: [ground_height, 0.0, 0.0, 0.0],
    }
}

/// A binding of the first `size` bytes of a dynamic-offset uniform buffer.
fn uniform_binding(buffer: &wgpu::Buffer, size: usize) -> wgpu::BindingResource<'_> {
    wgpu::BindingResource::Buffer(wgpu::BufferBinding {
        buffer,
        offset: 0,
        size: std::num::NonZeroU64::new(size as u64),
    })
}

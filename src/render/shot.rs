//! A headless shot of a model: one viewport, or two interpolation modes side by side or one as
//! a ghost over the other (with the per-joint deviation heat), framed from the clip's animated
//! bounds and rendered at any clip time into labelled pixels. `animtune render` takes one
//! image of it, `animtune record` and the viewer's recorder one per frame.

use anim::{ClipCursor, ClipId, InterpolationOverride, LayerStack, LocalMatrices, Model, SampleSettings, SoaPose};
use glam::{Affine3A, Vec3};

use crate::render::animated::AnimatedProperties;
use crate::render::framing::animated_bounds;
use crate::render::text::{draw_label, text_width};
use crate::render::{GpuContext, GpuModel, InstanceDesc, OrbitCamera, RenderError, Renderer, ViewDesc, Viewport};

/// The viewer's default full scale of the deviation heat: a joint this far (model units) from
/// its place in the other mode is fully red.
pub const DEFAULT_HEAT_FULL_SCALE: f32 = 0.02;

/// What a shot shows.
#[derive(Debug, Clone, PartialEq)]
pub struct ShotSpec {
    /// The clip (`None`: the rest pose).
    pub clip: Option<ClipId>,
    /// How the clip is sampled (override, spaces, easing); with `compare`, each side's mode
    /// replaces `settings.mode`.
    pub settings: SampleSettings,
    /// Two modes: side by side, or the second as a ghost over the first (`compare_ghost`).
    pub compare: Option<(InterpolationOverride, InterpolationOverride)>,
    /// With `compare`: one viewport, the second mode a translucent ghost over the first.
    pub compare_ghost: bool,
    /// With `compare`: paint each joint's model-space distance between the two modes on the
    /// first mode's mesh, full red at `heat_full_scale`.
    pub heatmap: bool,
    /// Distance (model units) that reads as full heat.
    pub heat_full_scale: f32,
    /// A translucent ghost of the pose at this other clip time.
    pub ghost_at_secs: Option<f32>,
    /// Draw the skeleton overlay.
    pub skeleton: bool,
    /// Highlight this node in the skeleton overlay.
    pub selected_joint: Option<anim::NodeId>,
    /// Draw the ground grid and contact shadow.
    pub ground: bool,
    /// The camera to draw from (the viewer's view, for a recording of what is on screen);
    /// `None` frames the clip's animated bounds from the default angle.
    pub camera: Option<OrbitCamera>,
    /// Layers over the clip, applied in order to every drawn pose (each layer's clip at the
    /// clip's time, looped to its length).
    pub layers: Vec<anim::LayerDesc>,
    /// Paint the layers' masks (times their weights; the largest over the layers) on the mesh
    /// as heat (without `compare`'s heat map).
    pub mask_heat: bool,
    /// Image size in pixels.
    pub width: u32,
    /// Image height in pixels.
    pub height: u32,
}

impl ShotSpec {
    /// A plain shot of `clip` as authored at `width`×`height`.
    pub fn new(clip: Option<ClipId>, width: u32, height: u32) -> Self {
        Self {
            clip,
            settings: SampleSettings::default(),
            compare: None,
            compare_ghost: false,
            heatmap: false,
            heat_full_scale: DEFAULT_HEAT_FULL_SCALE,
            ghost_at_secs: None,
            skeleton: false,
            selected_joint: None,
            ground: true,
            camera: None,
            layers: Vec::new(),
            mask_heat: false,
            width,
            height,
        }
    }

    /// The sampling settings of each drawn pose: one, or the two compared modes.
    fn pose_settings(&self) -> Vec<SampleSettings> {
        match self.compare {
            Some((a, b)) => [a, b]
                .into_iter()
                .map(|mode| SampleSettings { mode, track_modes: Vec::new(), ..self.settings.clone() })
                .collect(),
            None => vec![self.settings.clone()],
        }
    }
}

/// A camera framing the model's animated bounds over the clip (sampled at 16 times with each
/// of `settings`) for a viewport of `aspect`.
pub fn framed_camera(model: &Model, clip: Option<ClipId>, settings: &[SampleSettings], aspect: f32) -> OrbitCamera {
    let mut bounds = crate::render::Aabb::EMPTY;
    for s in settings {
        bounds.union(&animated_bounds(model, clip, s, 16));
    }
    let mut camera = OrbitCamera { yaw_rad: 0.6, pitch_rad: 0.22, ..OrbitCamera::default() };
    camera.frame(&bounds, aspect, 1.15);
    camera
}

/// The heat of a joint `distance` (model units) away from its other pose: `distance /
/// full_scale` clamped to `[0, 1]`; a non-finite distance is full heat. The viewer's compare
/// and A/B heatmaps and the recordings' all paint this.
pub fn heat_of(distance: f32, full_scale: f32) -> f32 {
    if distance.is_finite() { (distance / full_scale.max(1e-6)).min(1.0) } else { 1.0 }
}

/// Per-joint deviation heat between two poses of `model`: each node's model-space distance
/// over `full_scale`, clamped to `[0, 1]` (non-finite distances are full heat), into `heat`.
/// `scratch` holds the caller-owned buffers.
pub fn deviation_heat(
    model: &Model,
    a: &SoaPose,
    b: &SoaPose,
    full_scale: f32,
    scratch: &mut HeatScratch,
    heat: &mut Vec<f32>,
) {
    let n = model.nodes().len();
    scratch.a.resize(n, Affine3A::IDENTITY);
    scratch.b.resize(n, Affine3A::IDENTITY);
    model.hierarchy.local_to_model(a, &mut scratch.locals, &mut scratch.a);
    model.hierarchy.local_to_model(b, &mut scratch.locals, &mut scratch.b);
    heat.clear();
    heat.extend(
        scratch
            .a
            .iter()
            .zip(&scratch.b)
            .map(|(a, b)| heat_of(Vec3::from(a.translation).distance(Vec3::from(b.translation)), full_scale)),
    );
}

/// Reusable buffers of [`deviation_heat`].
#[derive(Debug, Default)]
pub struct HeatScratch {
    locals: LocalMatrices,
    a: Vec<Affine3A>,
    b: Vec<Affine3A>,
}

/// A shot ready to render at any time: the renderer, the uploaded model, the camera and the
/// pose buffers, made once.
pub struct Shot {
    spec: ShotSpec,
    renderer: Renderer,
    gpu: GpuModel,
    camera: OrbitCamera,
    viewports: Vec<Viewport>,
    labels: Vec<String>,
    settings: Vec<SampleSettings>,
    rest: SoaPose,
    poses: Vec<SoaPose>,
    ghost: SoaPose,
    cursor: Option<ClipCursor>,
    layers: Option<LayerStack>,
    /// A blend space shown instead of the clip (from phase 0, at its parameter).
    blend_space: Option<anim::BlendSpacePlayer>,
    heat: Vec<f32>,
    heat_scratch: HeatScratch,
}

impl std::fmt::Debug for Shot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shot").field("spec", &self.spec).finish_non_exhaustive()
    }
}

impl Shot {
    /// Upload `model` and frame the camera on its animated bounds (16 times per drawn mode).
    ///
    /// # Errors
    /// Texture decoding failures, or a zero size.
    pub fn new(ctx: &GpuContext, model: &Model, spec: ShotSpec) -> Result<Self, RenderError> {
        if spec.width == 0 || spec.height == 0 {
            let limit = ctx.device.limits().max_texture_dimension_2d;
            return Err(RenderError::InvalidSize { width: spec.width, height: spec.height, limit });
        }
        let settings = spec.pose_settings();
        let split = spec.compare.is_some() && !spec.compare_ghost;
        let viewports = Viewport::split_horizontally(spec.width, spec.height, if split { 2 } else { 1 });
        let camera = spec.camera.unwrap_or_else(|| framed_camera(model, spec.clip, &settings, viewports[0].aspect()));
        let labels = match spec.compare {
            Some((a, b)) if spec.compare_ghost => vec![format!("{}, {} AS GHOST", a.name(), b.name())],
            Some((a, b)) => vec![a.name().to_owned(), b.name().to_owned()],
            None => Vec::new(),
        };
        let renderer = Renderer::new(&ctx.device);
        let gpu = renderer.upload(ctx, model)?;
        let rest = model.rest_pose();
        let cursor = spec.clip.and_then(|c| model.clip(c)).map(ClipCursor::new);
        let layers = if spec.layers.is_empty() {
            None
        } else {
            Some(LayerStack::new(model, &settings[0], spec.layers.clone())?)
        };
        Ok(Self {
            layers,
            blend_space: None,
            poses: vec![rest.clone(); settings.len()],
            ghost: rest.clone(),
            rest,
            spec,
            renderer,
            gpu,
            camera,
            viewports,
            labels,
            settings,
            cursor,
            heat: Vec::new(),
            heat_scratch: HeatScratch::default(),
        })
    }

    /// What the shot shows.
    pub fn spec(&self) -> &ShotSpec {
        &self.spec
    }

    /// Show `player` instead of the clip (`None`: the clip again): played from phase 0 for
    /// the render's time, at its parameter; the layers apply over it.
    pub fn set_blend_space(&mut self, player: Option<anim::BlendSpacePlayer>) {
        self.blend_space = player;
    }

    /// Sample the clip (or the blend space) at `time_secs` into `pose` with `settings` (the
    /// rest pose without a clip).
    fn pose_at(&mut self, model: &Model, time_secs: f32, which: usize) {
        let pose = if which < self.poses.len() { &mut self.poses[which] } else { &mut self.ghost };
        pose.copy_from(&self.rest);
        if let Some(player) = &mut self.blend_space {
            let settings = self.settings.get(which).unwrap_or(&self.settings[0]);
            player.set_phase(0.0);
            player.evaluate_ahead(model, settings, time_secs, pose);
            if let Some(stack) = &mut self.layers {
                stack.apply(model, settings, time_secs, pose);
            }
            return;
        }
        let (Some(clip), Some(cursor)) = (self.spec.clip.and_then(|c| model.clip(c)), self.cursor.as_mut()) else {
            return;
        };
        let settings = self.settings.get(which).unwrap_or(&self.settings[0]);
        clip.sample(time_secs, cursor, settings, pose);
        if let Some(stack) = &mut self.layers {
            stack.apply(model, settings, time_secs, pose);
        }
    }

    /// Render the shot at clip time `time_secs`, with the mode labels and `footer` (bottom
    /// right; empty for none) drawn in.
    ///
    /// # Errors
    /// Readback failures.
    pub fn render(
        &mut self,
        ctx: &GpuContext,
        model: &Model,
        time_secs: f32,
        footer: &str,
    ) -> Result<image::RgbaImage, RenderError> {
        for which in 0..self.poses.len() {
            self.pose_at(model, time_secs, which);
        }
        if let Some(ghost_secs) = self.spec.ghost_at_secs {
            self.pose_at(model, ghost_secs, self.poses.len());
        }
        let mut heat_on = self.spec.heatmap && self.poses.len() == 2;
        if heat_on {
            let (a, b) = (&self.poses[0], &self.poses[1]);
            deviation_heat(model, a, b, self.spec.heat_full_scale, &mut self.heat_scratch, &mut self.heat);
        } else if let (true, Some(stack)) = (self.spec.mask_heat, &self.layers) {
            self.heat.clear();
            self.heat.resize(model.nodes().len(), 0.0);
            for layer in 0..stack.len() {
                for (h, &w) in self.heat.iter_mut().zip(stack.node_weights(layer).unwrap_or(&[])) {
                    *h = h.max(w);
                }
            }
            heat_on = true;
        }
        let properties = AnimatedProperties::sample(model, self.spec.clip, time_secs);
        let ghost_properties = self.spec.ghost_at_secs.map(|t| AnimatedProperties::sample(model, self.spec.clip, t));
        let heat = heat_on.then_some(self.heat.as_slice());
        let solid = |pose| InstanceDesc { properties: Some(&properties), ..InstanceDesc::solid(pose) };
        let view = |viewport, instances| ViewDesc {
            viewport,
            camera: self.camera,
            instances,
            ground: self.spec.ground,
            skeleton: self.spec.skeleton || self.spec.selected_joint.is_some(),
            selected_joint: self.spec.selected_joint,
            lines: &[],
        };
        let mut views = Vec::with_capacity(2);
        if self.spec.compare.is_some() && self.spec.compare_ghost {
            let first = InstanceDesc { joint_heat: heat, ..solid(&self.poses[0]) };
            let ghost = InstanceDesc { properties: Some(&properties), ..InstanceDesc::ghost(&self.poses[1]) };
            views.push(view(self.viewports[0], vec![first, ghost]));
        } else {
            for (i, (viewport, pose)) in self.viewports.iter().zip(&self.poses).enumerate() {
                let mut instances = vec![InstanceDesc { joint_heat: heat.filter(|_| i == 0), ..solid(pose) }];
                if self.spec.ghost_at_secs.is_some() {
                    instances.push(InstanceDesc {
                        properties: ghost_properties.as_ref(),
                        ..InstanceDesc::ghost(&self.ghost)
                    });
                }
                views.push(view(*viewport, instances));
            }
        }
        let (width, height) = (self.spec.width, self.spec.height);
        let mut image = self.renderer.render_to_image(ctx, model, &self.gpu, &views, width, height)?;
        let scale = if height >= 400 { 2 } else { 1 };
        for (viewport, label) in self.viewports.iter().zip(&self.labels) {
            draw_label(&mut image, viewport.x + 6 * scale, viewport.y + 6 * scale, label, scale, [255; 4]);
        }
        for viewport in self.viewports.iter().skip(1) {
            for y in 0..height {
                image.put_pixel(viewport.x.min(width - 1), y, image::Rgba([20, 20, 24, 255]));
            }
        }
        if !footer.is_empty() {
            let label_width = text_width(footer, scale) + 4 * scale;
            let x = width.saturating_sub(label_width + 6 * scale);
            draw_label(&mut image, x, height.saturating_sub(13 * scale), footer, scale, [220, 220, 220, 255]);
        }
        Ok(image)
    }
}

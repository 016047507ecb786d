//! The one bridge between egui and the renderer: renders the [`Viewer`]'s frame output into an
//! offscreen texture and registers it with egui-wgpu under a stable [`egui::TextureId`], which
//! [`super::viewport::ViewportPanel`] shows.

use crate::render::{
    CrowdView, DeviceHealth, GpuContext, GpuModel, InstanceDesc, Layer, RenderTarget, Renderer, ViewDesc, Viewport,
};

use super::Viewer;
use crate::stage::compare::CompareLayout;

/// Every GPU object of the viewer on one device: the device, its health watch, egui's renderer
/// and the 3D view's. When the device is lost, [`Self::replace_device`] swaps in a new one; the
/// viewer state (model, tuning) lives elsewhere and is untouched.
pub struct ViewerGpu {
    /// Adapter, device and queue.
    pub gpu: GpuContext,
    /// Device-lost and uncaptured-error reports of `gpu.device`.
    pub health: DeviceHealth,
    /// egui's painter (its textures live on `gpu.device`).
    pub egui_renderer: egui_wgpu::Renderer,
    /// The 3D view.
    pub viewport: ViewportRenderer,
    output_format: wgpu::TextureFormat,
}

impl std::fmt::Debug for ViewerGpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ViewerGpu").field("gpu", &self.gpu).field("health", &self.health).finish_non_exhaustive()
    }
}

impl ViewerGpu {
    /// Everything on `gpu`, painting egui into `output_format` targets.
    pub fn new(gpu: GpuContext, output_format: wgpu::TextureFormat) -> Self {
        let health = DeviceHealth::watch(&gpu.device);
        let egui_renderer = egui_wgpu::Renderer::new(&gpu.device, output_format, egui_wgpu::RendererOptions::default());
        let viewport = ViewportRenderer::new(&gpu);
        Self { gpu, health, egui_renderer, viewport, output_format }
    }

    /// Why the device was lost, once it was.
    pub fn lost(&self) -> Option<String> {
        self.health.lost()
    }

    /// Rebuild every GPU object on `gpu` (after a loss). The model is uploaded again on the
    /// next render; egui must re-send its textures (use a fresh `egui::Context`).
    pub fn replace_device(&mut self, gpu: GpuContext) {
        *self = Self::new(gpu, self.output_format);
    }

    /// Render the 3D view of `viewer` ([`ViewportRenderer::render`]).
    pub fn render_viewport(&mut self, viewer: &Viewer, size_pixels: [u32; 2]) -> Option<egui::TextureId> {
        self.viewport.render(&self.gpu, &mut self.egui_renderer, viewer, size_pixels)
    }
}

/// Draws the 3D view into a texture egui can show.
#[derive(Debug)]
pub struct ViewportRenderer {
    renderer: Renderer,
    gpu_model: Option<GpuModel>,
    uploaded_generation: Option<u64>,
    /// The A/B view's second model and the generation it was uploaded for.
    second: Option<(u64, GpuModel)>,
    target: Option<RenderTarget>,
    texture: Option<egui::TextureId>,
    gamma_view: bool,
    /// The last upload error (a texture that does not decode, say), shown by the app.
    pub error: Option<String>,
}

impl ViewportRenderer {
    /// A renderer on `gpu`'s device.
    pub fn new(gpu: &GpuContext) -> Self {
        let gamma_view = gpu.adapter.get_downlevel_capabilities().flags.contains(wgpu::DownlevelFlags::VIEW_FORMATS);
        Self {
            renderer: Renderer::new(&gpu.device),
            gpu_model: None,
            uploaded_generation: None,
            second: None,
            target: None,
            texture: None,
            gamma_view,
            error: None,
        }
    }

    /// The texture the last frame was drawn into.
    pub fn target(&self) -> Option<&RenderTarget> {
        self.target.as_ref()
    }

    /// Render `viewer`'s frame output at `size_pixels` (submitted on `gpu`'s queue) and point
    /// the returned egui texture at the result. `None` for a zero size or when the model cannot
    /// be uploaded.
    pub fn render(
        &mut self,
        gpu: &GpuContext,
        egui_renderer: &mut egui_wgpu::Renderer,
        viewer: &Viewer,
        size_pixels: [u32; 2],
    ) -> Option<egui::TextureId> {
        let [width, height] = size_pixels;
        if width == 0 || height == 0 {
            return self.texture;
        }
        if self.uploaded_generation != Some(viewer.stage.generation()) {
            self.uploaded_generation = Some(viewer.stage.generation());
            match self.renderer.upload(gpu, viewer.stage.model()) {
                Ok(model) => {
                    self.gpu_model = Some(model);
                    self.error = None;
                }
                Err(error) => {
                    self.gpu_model = None;
                    self.error = Some(error.to_string());
                }
            }
        }
        let gpu_model = self.gpu_model.as_ref()?;
        if self.target.as_ref().is_none_or(|t| t.size() != (width, height)) {
            let target = RenderTarget::with_views(&gpu.device, width, height, self.gamma_view).ok()?;
            match self.texture {
                Some(id) => egui_renderer.update_egui_texture_from_wgpu_texture(
                    &gpu.device,
                    target.ui_view(),
                    wgpu::FilterMode::Linear,
                    id,
                ),
                None => {
                    self.texture = Some(egui_renderer.register_native_texture(
                        &gpu.device,
                        target.ui_view(),
                        wgpu::FilterMode::Linear,
                    ));
                }
            }
            self.target = Some(target);
        }
        let target = self.target.as_ref()?;
        let camera = viewer.viewport.camera;
        if let Some(crowd) = &viewer.stage.crowd.crowd {
            let bounds = crowd.bounds();
            let view = CrowdView {
                viewport: Viewport { x: 0, y: 0, width, height },
                camera,
                instances: crowd.len() as u32,
                palettes: crowd.palettes(),
                palette_stride: crowd.palette_stride() as u32,
                node_worlds: crowd.node_worlds(),
                node_slots: crowd.node_slots(),
                weights: crowd.weights(),
                ground: true,
                ground_radius: (bounds.max - bounds.min).max_element() * 0.5,
            };
            self.renderer.render_crowd(gpu, viewer.stage.model(), gpu_model, &view, target);
            return self.texture;
        }
        let frame = &viewer.stage.frame();
        if let Some((b_model, b_pose, b_generation)) = viewer.ab.b_pose() {
            if self.second.as_ref().is_none_or(|(g, _)| *g != b_generation) {
                match self.renderer.upload(gpu, b_model) {
                    Ok(uploaded) => self.second = Some((b_generation, uploaded)),
                    Err(error) => {
                        self.second = None;
                        self.error = Some(format!("B: {error}"));
                    }
                }
            }
            if let Some((_, b_gpu)) = &self.second {
                let heat = (!viewer.ab.heat().is_empty()).then_some(viewer.ab.heat());
                let a = InstanceDesc {
                    joint_heat: heat,
                    model_from_node: Some(frame.model_from_node()),
                    properties: frame.properties(),
                    ..InstanceDesc::solid(frame.shown())
                };
                let split = viewer.ab.is_split();
                let viewports = Viewport::split_horizontally(width, height, if split { 2 } else { 1 });
                let skeleton = viewer.overlays.skeleton;
                let view = |viewport, instances, ground, selected: Option<anim::NodeId>| ViewDesc {
                    viewport,
                    camera,
                    instances,
                    ground,
                    skeleton,
                    selected_joint: skeleton.then_some(selected).flatten(),
                    lines: &[],
                };
                let a_views = [view(viewports[0], vec![a], true, viewer.stage.selection.joint)];
                // B's ghost in white: the heat ramp on A is blue where nothing changed.
                let b_instance = if split {
                    InstanceDesc::solid(b_pose)
                } else {
                    InstanceDesc { tint: [0.95, 0.95, 0.95, 0.7], ..InstanceDesc::ghost(b_pose) }
                };
                let b_views = [view(*viewports.last().unwrap_or(&viewports[0]), vec![b_instance], split, None)];
                let layers = [
                    Layer { model: viewer.stage.model(), gpu: gpu_model, views: &a_views },
                    Layer { model: b_model, gpu: b_gpu, views: &b_views },
                ];
                self.renderer.render_layers(gpu, &layers, target);
                return self.texture;
            }
        }
        let heat = (!frame.joint_heat().is_empty()).then_some(frame.joint_heat());
        let properties = frame.properties();
        let shown = InstanceDesc {
            joint_heat: heat,
            model_from_node: Some(frame.model_from_node()),
            properties,
            ..InstanceDesc::solid(frame.shown())
        };
        let compared = |ghost: bool| {
            frame.compare_pose().map(|pose| InstanceDesc {
                model_from_node: Some(frame.compare_model_from_node()),
                properties: if ghost { None } else { properties },
                ..if ghost { InstanceDesc::ghost(pose) } else { InstanceDesc::solid(pose) }
            })
        };
        let view_instances: Vec<Vec<InstanceDesc<'_>>> = match viewer.stage.compare.layout() {
            Some(CompareLayout::Split) => {
                [Some(shown), compared(false)].into_iter().flatten().map(|i| vec![i]).collect()
            }
            Some(CompareLayout::Ghost) => vec![[Some(shown), compared(true)].into_iter().flatten().collect()],
            None => vec![vec![shown]],
        };
        let skeleton = viewer.overlays.skeleton;
        // A ragdoll's skeleton is its body tree (no lines to IK targets or the armature root).
        self.renderer.skeleton_links.clear();
        self.renderer.skeleton_links.extend_from_slice(viewer.stage.ragdoll.skeleton_links());
        let viewports = Viewport::split_horizontally(width, height, view_instances.len() as u32);
        let views: Vec<ViewDesc<'_>> = viewports
            .iter()
            .zip(view_instances)
            .map(|(&viewport, instances)| ViewDesc {
                viewport,
                camera,
                instances,
                ground: true,
                skeleton,
                selected_joint: skeleton.then_some(viewer.stage.selection.joint).flatten(),
                lines: frame.collider_lines(),
            })
            .collect();
        self.renderer.render(gpu, viewer.stage.model(), gpu_model, &views, target);
        self.texture
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The viewer's GPU side loses its device (wgpu's device-lost callback fires on `destroy`),
    /// is rebuilt on a new device, and draws the same model again; the state is untouched.
    #[test]
    fn recovers_from_a_lost_device_and_skips_zero_size_views() {
        let Ok(gpu) = GpuContext::new_headless() else {
            devtools::ci::skip("no GPU adapter (install mesa-vulkan-drivers for lavapipe)");
            return;
        };
        let model = anim::import::load_slice(crate::mannequin::DEFAULT_MODEL_GLB, None).expect("built-in model");
        let mut state = Viewer::new(model, super::super::ModelSource::built_in());
        state.stage.transport.seek(0.4);
        state.compute_frame();
        let format = wgpu::TextureFormat::Rgba8Unorm;
        let mut viewer_gpu = ViewerGpu::new(gpu, format);
        let covered = |viewer_gpu: &ViewerGpu| -> usize {
            let target = viewer_gpu.viewport.target().expect("a target");
            let image =
                crate::render::readback::read_rgba8(&viewer_gpu.gpu.device, &viewer_gpu.gpu.queue, target.texture())
                    .expect("readback");
            // The background is near-black; the lit mannequin and the grid are not.
            image.pixels().filter(|p| u32::from(p.0[0]) + u32::from(p.0[1]) + u32::from(p.0[2]) > 150).count()
        };
        assert!(viewer_gpu.render_viewport(&state, [160, 120]).is_some());
        let before = covered(&viewer_gpu);
        assert!(before > 500, "the model should cover the view: {before} bright pixels");
        assert!(viewer_gpu.lost().is_none());

        viewer_gpu.gpu.device.destroy();
        let _ = viewer_gpu.gpu.device.poll(wgpu::PollType::wait_indefinitely());
        let lost = viewer_gpu.lost().expect("the device-lost callback fired");
        assert!(lost.contains("destroyed"), "{lost}");

        let generation = state.stage.generation();
        let new_gpu = GpuContext::new_headless().expect("a new device");
        viewer_gpu.replace_device(new_gpu);
        assert!(viewer_gpu.lost().is_none());
        assert!(viewer_gpu.render_viewport(&state, [160, 120]).is_some());
        let after = covered(&viewer_gpu);
        assert_eq!(state.stage.generation(), generation, "the model is kept");
        assert!(after.abs_diff(before) <= before / 50, "same picture after recovery: {before} vs {after} pixels");

        // A minimised window asks for a zero-size view: nothing is drawn or reallocated, the last
        // frame's texture stays registered, and the next real size draws again.
        let texture = viewer_gpu.render_viewport(&state, [160, 120]);
        for size in [[0, 0], [0, 120], [160, 0]] {
            assert_eq!(viewer_gpu.render_viewport(&state, size), texture, "{size:?}");
        }
        assert_eq!(viewer_gpu.viewport.target().map(RenderTarget::size), Some((160, 120)));
        assert!(viewer_gpu.render_viewport(&state, [200, 100]).is_some());
        assert_eq!(viewer_gpu.viewport.target().map(RenderTarget::size), Some((200, 100)));
        assert!(viewer_gpu.health.take_errors().is_empty(), "no GPU validation errors");
    }
}

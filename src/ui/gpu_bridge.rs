//! The one bridge between egui and the renderer: renders the [`ViewerState`] into an offscreen
//! texture and registers it with egui-wgpu under a stable [`egui::TextureId`], which
//! [`super::viewport::ViewportPanel`] shows.

use crate::render::{GpuContext, GpuModel, InstanceDesc, RenderTarget, Renderer, ViewDesc, Viewport};

use super::ViewerState;

/// Draws the 3D view into a texture egui can show.
#[derive(Debug)]
pub struct ViewportRenderer {
    renderer: Renderer,
    gpu_model: Option<GpuModel>,
    uploaded_generation: Option<u64>,
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
            target: None,
            texture: None,
            gamma_view,
            error: None,
        }
    }

    /// Render `state` at `size_pixels` (submitted on `gpu`'s queue) and point the returned egui
    /// texture at the result. `None` for a zero size or when the model cannot be uploaded.
    pub fn render(
        &mut self,
        gpu: &GpuContext,
        egui_renderer: &mut egui_wgpu::Renderer,
        state: &ViewerState,
        size_pixels: [u32; 2],
    ) -> Option<egui::TextureId> {
        let [width, height] = size_pixels;
        if width == 0 || height == 0 {
            return self.texture;
        }
        if self.uploaded_generation != Some(state.model_generation) {
            self.uploaded_generation = Some(state.model_generation);
            match self.renderer.upload(gpu, &state.model) {
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
        let poses = match state.compare {
            Some(_) => vec![&state.pose, &state.compare_pose],
            None => vec![&state.pose],
        };
        let viewports = Viewport::split_horizontally(width, height, poses.len() as u32);
        let views: Vec<ViewDesc<'_>> = viewports
            .iter()
            .zip(poses)
            .map(|(&viewport, pose)| ViewDesc {
                viewport,
                camera: state.camera,
                instances: vec![InstanceDesc::solid(pose)],
                ground: true,
                skeleton: state.skeleton,
                selected_joint: state.skeleton.then_some(state.selected_joint).flatten(),
            })
            .collect();
        self.renderer.render(gpu, &state.model, gpu_model, &views, target);
        self.texture
    }
}

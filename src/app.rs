//! The interactive viewer's window shell (winit 0.30): window and wgpu surface, egui input and
//! painting. Everything the viewer shows lives in [`crate::ui`]; the 3D view is drawn by
//! [`crate::render`] through [`crate::ui::gpu_bridge`].

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use winit::application::ApplicationHandler;
use winit::event::WindowEvent;
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::window::{Window, WindowId};

use crate::render::GpuContext;
use crate::render::device::device_descriptor;
use crate::stage::stats::{Phase, PhaseClock};
use crate::ui::gpu_bridge::ViewerGpu;
use crate::ui::{ModelSource, Viewer};

/// The viewer's command line (what `animtune` without a command takes, and what View ▸ Copy
/// command line writes): the model and the start-up flags.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ViewerLine {
    /// Without a command: open this .glb or .gltf in the interactive viewer (default: the
    /// built-in character).
    pub model: Option<std::path::PathBuf>,
    /// How the viewer starts.
    #[command(flatten)]
    pub view: ViewerOptions,
}

/// How the viewer starts (command-line flags; everything can be changed in the window).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ViewerOptions {
    /// Start on this clip (name or index).
    #[arg(long)]
    pub clip: Option<String>,
    /// Start in compare mode with these two interpolation modes, e.g. `linear,cubic`.
    #[arg(long, value_name = "LEFT,RIGHT")]
    pub compare: Option<String>,
    /// Compare (two modes, or A/B with `--ab`) as a ghost overlay instead of side by side.
    #[arg(long)]
    pub ghost: bool,
    /// Paint the compare deviation on the mesh.
    #[arg(long)]
    pub heatmap: bool,
    /// Start at this clip time in seconds, paused: the frame to show someone.
    #[arg(long, value_name = "SECS", allow_negative_numbers = true)]
    pub time: Option<f32>,
    /// Select this joint (node name or index): its curves, channel override and highlight.
    #[arg(long, value_name = "NAME_OR_INDEX")]
    pub joint: Option<String>,
    /// The selected joint's channel shown in the curves: translation, rotation, scale or
    /// weights.
    #[arg(long, value_name = "CHANNEL")]
    pub channel: Option<String>,
    /// Open the side panel at this section: profile, clips, interpolation, joints, curves,
    /// cross-fade, state-machine, compare, ragdoll, crowd or record.
    #[arg(long, value_name = "PANEL", value_parser = crate::ui::Panel::from_name)]
    pub panel: Option<crate::ui::Panel>,
    /// Sample every clip with this mode: authored, step, linear or cubic (a tuning change like
    /// one made in the panel: saved in the model's profile, undone with Ctrl+Z).
    #[arg(long, value_name = "MODE")]
    pub interpolation: Option<anim::InterpolationOverride>,
    /// Open this second file beside the model (A/B): the same clip and time in both, the
    /// joints that differ listed and painted.
    #[arg(long, value_name = "FILE")]
    pub ab: Option<std::path::PathBuf>,
    /// Do not watch the open file for changes (hot reload is on by default).
    #[arg(long)]
    pub no_hot_reload: bool,
    /// Show the skeleton overlay.
    #[arg(long)]
    pub skeleton: bool,
    /// Show the root's trajectory on the ground (View ▸ Trajectory).
    #[arg(long)]
    pub trajectory: bool,
    /// Show the ragdoll colliders.
    #[arg(long)]
    pub colliders: bool,
    /// Show the Stats overlay (frame times, resident memory).
    #[arg(long)]
    pub stats: bool,
    /// Crowd mode: N copies of the model, each with its own clips, phases and cross-fades.
    #[arg(long, value_name = "N")]
    pub crowd: Option<usize>,
    /// Close the window after this many seconds (saving the profile as a normal close does).
    #[arg(long, value_name = "SECS")]
    pub exit_after: Option<f64>,
    /// On exit, write frame statistics to this JSON file: frames, CPU ms per frame (median,
    /// p95), resident memory (after the warm-up, at the end, peak), model and profile, hot
    /// reloads (`reloads`, `failed_reloads`), the clips of the model on screen (`clips`) and the
    /// rewind ring's span and memory (`rewind_secs_held`, `rewind_kib`).
    #[arg(long, value_name = "FILE.json")]
    pub stats_out: Option<std::path::PathBuf>,
    /// Seconds before frames and memory count in the statistics (default 10, at most half of
    /// `--exit-after`).
    #[arg(long, value_name = "SECS")]
    pub stats_warmup: Option<f64>,
}

impl ViewerOptions {
    /// True when an option names something of the model (a clip, joint, time…): the model must
    /// be loaded before the options apply.
    pub fn needs_model(&self) -> bool {
        self.clip.is_some()
            || self.crowd.is_some()
            || self.time.is_some()
            || self.joint.is_some()
            || self.channel.is_some()
            || self.interpolation.is_some()
            || self.ab.is_some()
    }

    /// Apply the options to `viewer` (after its model is loaded).
    ///
    /// # Errors
    /// An unknown clip or interpolation mode, or a number out of range.
    pub fn apply(&self, viewer: &mut Viewer) -> anyhow::Result<()> {
        if let Some(clip) = &self.clip {
            let clip = crate::cli::find_clip(viewer.stage.model(), clip)?;
            viewer.stage.transport.select_clip(clip);
        }
        if let Some(time) = self.time {
            anyhow::ensure!(time.is_finite(), "--time takes a number of seconds");
            viewer.stage.transport.seek(time);
            viewer.stage.transport.playing = false;
        }
        if let Some(joint) = &self.joint {
            viewer.stage.selection.joint = Some(crate::cli::render::find_node(viewer.stage.model(), joint)?);
        }
        if let Some(channel) = &self.channel {
            viewer.stage.selection.property = match channel.as_str() {
                "translation" => anim::Property::Translation,
                "rotation" => anim::Property::Rotation,
                "scale" => anim::Property::Scale,
                "weights" => anim::Property::Weights,
                other => anyhow::bail!("unknown channel \"{other}\" (translation, rotation, scale or weights)"),
            };
        }
        if let Some(mode) = self.interpolation {
            let mut interpolation = viewer.stage.tuning.interpolation();
            interpolation.mode = mode;
            viewer.stage.tuning.set_interpolation(interpolation);
        }
        if let Some(path) = &self.ab {
            let second = crate::cli::load_model(path)?;
            viewer.ab.set_second(viewer.stage.model(), path, second);
            if self.ghost {
                viewer.ab.layout = crate::stage::compare::CompareLayout::Ghost;
            }
            viewer.focus_panel = viewer.focus_panel.or(Some(crate::ui::Panel::Compare));
        }
        viewer.focus_panel = self.panel.or(viewer.focus_panel);
        viewer.hot_reload.enabled = !self.no_hot_reload;
        if let Some(compare) = &self.compare {
            let (left, right) = compare.split_once(',').context("--compare takes LEFT,RIGHT, e.g. linear,cubic")?;
            let parse = |m: &str| m.trim().parse::<anim::InterpolationOverride>().map_err(anyhow::Error::msg);
            viewer.stage.compare.show(crate::stage::compare::CompareModes {
                left: parse(left)?,
                right: parse(right)?,
                layout: if self.ghost {
                    crate::stage::compare::CompareLayout::Ghost
                } else {
                    crate::stage::compare::CompareLayout::Split
                },
                heatmap: self.heatmap,
                ..Default::default()
            });
        }
        if let Some(count) = self.crowd {
            anyhow::ensure!(
                (1..=crate::crowd::MAX_CROWD).contains(&count),
                "--crowd takes 1 to {} instances",
                crate::crowd::MAX_CROWD
            );
            viewer.set_crowd(Some(count));
        }
        if let Some(secs) = self.exit_after {
            anyhow::ensure!(secs.is_finite() && secs > 0.0, "--exit-after takes a positive number of seconds");
        }
        if let Some(secs) = self.stats_warmup {
            anyhow::ensure!(secs.is_finite() && secs >= 0.0, "--stats-warmup takes a number of seconds >= 0");
        }
        viewer.overlays.skeleton |= self.skeleton;
        viewer.overlays.trajectory |= self.trajectory;
        viewer.overlays.stats_visible |= self.stats;
        viewer.stage.ragdoll.show_colliders |= self.colliders;
        viewer.compute_frame();
        viewer.frame_camera();
        Ok(())
    }
}

/// The address `puffin_viewer` connects to (`ANIMTUNE_PUFFIN_ADDR` overrides it); loopback only.
#[cfg(feature = "puffin")]
const PUFFIN_ADDR: &str = "127.0.0.1:8585";

/// Serves the profiler's scopes (built with `--features puffin`): `puffin_viewer --url ADDR`.
#[cfg(feature = "puffin")]
fn start_profiler_server() -> anyhow::Result<puffin_http::Server> {
    let addr = std::env::var("ANIMTUNE_PUFFIN_ADDR").unwrap_or_else(|_| PUFFIN_ADDR.to_owned());
    let server = puffin_http::Server::new(&addr).with_context(|| format!("cannot serve the profiler on {addr}"))?;
    profiling::puffin::set_scopes_on(true);
    eprintln!("animtune: profiler scopes served on {addr} (puffin_viewer --url {addr})");
    Ok(server)
}

/// Open the viewer on `model` (the built-in character when `None`) and run until the window
/// closes. A model that fails to load keeps the built-in character with the error shown.
///
/// # Errors
/// No display, no GPU adapter, or a surface the adapter cannot present to; an unknown clip or
/// mode in `options`.
pub fn run(model: Option<&Path>, options: &ViewerOptions) -> anyhow::Result<()> {
    // The window's thread updates crowds: make it a rayon worker (allocation-free frames).
    crate::crowd::init_thread_pool();
    // Built with `--features puffin`: the frame's scopes served to `puffin_viewer` while the
    // window is open (the server stops with it).
    #[cfg(feature = "puffin")]
    let _profiler = start_profiler_server()?;
    let (default_model, _) = crate::cli::load_model_or_default(None)?;
    let mut viewer =
        Viewer::new(default_model, ModelSource::built_in()).with_config_dir(crate::profile::default_profile_dir());
    let warmup_secs = options.stats_warmup.unwrap_or(10.0).min(options.exit_after.map_or(f64::INFINITY, |s| s * 0.5));
    viewer.overlays.stats = crate::stage::stats::FrameStats::new(Duration::from_secs_f64(warmup_secs));
    if let Some(path) = model {
        // Loads in the background while the window opens; a clip chosen on the command line
        // needs the model first.
        viewer.load(path);
        if options.needs_model() {
            viewer.wait_for_loading();
        }
    }
    options.apply(&mut viewer)?;
    let event_loop = EventLoop::<Wake>::with_user_event().build().context("cannot open a window (no display?)")?;
    // A save of the open file wakes the loop, so the reload shows within the debounce time even
    // while the window is idle.
    let proxy = event_loop.create_proxy();
    viewer.hot_reload.set_waker(move || _ = proxy.send_event(Wake));
    let exit_at = options.exit_after.map(|secs| Instant::now() + Duration::from_secs_f64(secs));
    let mut app = App {
        viewer,
        window: None,
        fatal: None,
        next_repaint: Instant::now(),
        exit_at,
        stats_out: options.stats_out.clone(),
    };
    event_loop.run_app(&mut app).context("the window's event loop failed")?;
    match app.fatal {
        Some(error) => Err(error),
        None => Ok(()),
    }
}

/// The user event that wakes the event loop: a watched file changed (hot reload).
#[derive(Debug, Clone, Copy)]
struct Wake;

/// The winit application: the viewer plus the window once it exists.
struct App {
    viewer: Viewer,
    window: Option<WindowState>,
    fatal: Option<anyhow::Error>,
    next_repaint: Instant,
    /// `--exit-after`: when to close the window.
    exit_at: Option<Instant>,
    /// `--stats-out`: where to write the statistics on exit.
    stats_out: Option<std::path::PathBuf>,
}

impl App {
    /// Save the profile, write the statistics when asked, and leave the event loop.
    fn exit(&mut self, event_loop: &ActiveEventLoop) {
        self.viewer.save_on_exit();
        if let Some(path) = &self.stats_out {
            let profile = self.viewer.profile.path().map(|p| p.display().to_string());
            let mut report =
                self.viewer.overlays.stats.report(Instant::now(), self.viewer.stage.source().label.clone(), profile);
            report.reloads = self.viewer.hot_reload.reloads;
            report.failed_reloads = self.viewer.hot_reload.failed_reloads;
            report.clips = self.viewer.clip_names();
            report.rewind_secs_held = self.viewer.stage.rewind().held_secs();
            report.rewind_kib = self.viewer.stage.rewind().memory_kib();
            let written = serde_json::to_string_pretty(&report).map_err(anyhow::Error::from).and_then(|json| {
                std::fs::write(path, json + "\n").with_context(|| format!("cannot write {}", path.display()))
            });
            if let Err(error) = written {
                self.fatal = Some(error);
            }
        }
        event_loop.exit();
    }
}

/// Everything that needs the window.
struct WindowState {
    window: Arc<Window>,
    instance: wgpu::Instance,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    gpu: ViewerGpu,
    egui_ctx: egui::Context,
    egui_winit: egui_winit::State,
    last_frame: Instant,
    /// The window title last set.
    title: String,
    /// When to destroy the device once, to exercise the recovery path
    /// (`ANIMTUNE_SIMULATE_DEVICE_LOSS_SECS`, used by the smoke test).
    simulate_loss_at: Option<Instant>,
}

/// Environment variable: seconds after start at which the viewer destroys its GPU device once,
/// to check device-loss recovery on a given machine (the smoke test sets it).
pub const SIMULATE_DEVICE_LOSS_ENV: &str = "ANIMTUNE_SIMULATE_DEVICE_LOSS_SECS";

/// An adapter and device that can present to `surface`.
fn request_gpu(instance: &wgpu::Instance, surface: &wgpu::Surface<'_>) -> anyhow::Result<GpuContext> {
    let options = wgpu::RequestAdapterOptions {
        power_preference: wgpu::PowerPreference::HighPerformance,
        force_fallback_adapter: false,
        compatible_surface: Some(surface),
        apply_limit_buckets: false,
    };
    let adapter = pollster::block_on(instance.request_adapter(&options))
        .map_err(|error| crate::render::RenderError::NoAdapter { detail: error.to_string() })?;
    let (device, queue) = pollster::block_on(adapter.request_device(&device_descriptor(&adapter)))
        .map_err(|source| crate::render::RenderError::Device { adapter: adapter.get_info().name, source })?;
    Ok(GpuContext { adapter, device, queue })
}

/// egui's input state for `window` on `ctx`.
fn egui_input_state(ctx: &egui::Context, window: &Window, max_texture_side: usize) -> egui_winit::State {
    egui_winit::State::new(
        ctx.clone(),
        egui::ViewportId::ROOT,
        window,
        Some(window.scale_factor() as f32),
        window.theme(),
        Some(max_texture_side),
    )
}

impl WindowState {
    fn new(event_loop: &ActiveEventLoop) -> anyhow::Result<Self> {
        let attributes = Window::default_attributes()
            .with_title("animtune")
            .with_inner_size(winit::dpi::LogicalSize::new(1280.0, 720.0));
        let window = Arc::new(event_loop.create_window(attributes).context("cannot create the window")?);
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_with_display_handle_from_env(Box::new(
            event_loop.owned_display_handle(),
        )));
        let surface = instance.create_surface(Arc::clone(&window)).context("cannot create a GPU surface")?;
        let gpu = request_gpu(&instance, &surface)?;
        let size = window.inner_size();
        let mut config = surface
            .get_default_config(&gpu.adapter, size.width.max(1), size.height.max(1))
            .context("the GPU adapter cannot present to this window")?;
        // egui blends in gamma space: prefer a non-sRGB surface format.
        let capabilities = surface.get_capabilities(&gpu.adapter);
        if let Some(&format) = capabilities.formats.iter().find(|f| !f.is_srgb()) {
            config.format = format;
        }
        config.present_mode = wgpu::PresentMode::AutoVsync;
        if size.width > 0 && size.height > 0 {
            surface.configure(&gpu.device, &config);
        }
        let egui_ctx = egui::Context::default();
        let max_texture_side = gpu.device.limits().max_texture_dimension_2d as usize;
        let egui_winit = egui_input_state(&egui_ctx, &window, max_texture_side);
        let gpu = ViewerGpu::new(gpu, config.format);
        let simulate_loss_at = std::env::var(SIMULATE_DEVICE_LOSS_ENV)
            .ok()
            .and_then(|v| v.parse::<f32>().ok())
            .filter(|s| s.is_finite() && *s >= 0.0)
            .map(|secs| Instant::now() + Duration::from_secs_f32(secs));
        Ok(Self {
            window,
            instance,
            surface,
            config,
            gpu,
            egui_ctx,
            egui_winit,
            last_frame: Instant::now(),
            title: "animtune".to_owned(),
            simulate_loss_at,
        })
    }

    /// After a device loss: a new device for the same surface, every GPU object rebuilt, and a
    /// fresh egui context (so that egui sends its textures again). The viewer state is untouched.
    fn recover_device(&mut self) -> anyhow::Result<()> {
        let gpu = request_gpu(&self.instance, &self.surface)?;
        self.gpu.replace_device(gpu);
        self.egui_ctx = egui::Context::default();
        let max_texture_side = self.gpu.gpu.device.limits().max_texture_dimension_2d as usize;
        self.egui_winit = egui_input_state(&self.egui_ctx, &self.window, max_texture_side);
        self.configure();
        Ok(())
    }

    /// Reconfigure the surface for the window's current size (skipped while it is zero).
    fn configure(&mut self) {
        let size = self.window.inner_size();
        if size.width == 0 || size.height == 0 {
            return;
        }
        self.config.width = size.width;
        self.config.height = size.height;
        self.surface.configure(&self.gpu.gpu.device, &self.config);
    }

    /// Run one frame: advance playback, build the UI, render the 3D view and paint. Returns how
    /// long egui may wait before the next frame, and the window thread's time spent on the frame
    /// without waiting for the swapchain (`None` when nothing was drawn).
    fn redraw(&mut self, viewer: &mut Viewer) -> (Duration, Option<Duration>) {
        // One profiler frame per window frame (nothing unless built with `--features puffin`).
        profiling::finish_frame!();
        profiling::scope!("redraw");
        let now = Instant::now();
        let cpu_at_start = crate::stage::stats::thread_cpu_time();
        let dt_secs = now.duration_since(self.last_frame).as_secs_f32();
        self.last_frame = now;
        let size = self.window.inner_size();
        if size.width == 0 || size.height == 0 {
            // Minimised: nothing to draw, and no egui pass whose texture deltas would go unapplied.
            return (Duration::from_millis(100), None);
        }
        if self.simulate_loss_at.is_some_and(|at| now >= at) {
            self.simulate_loss_at = None;
            eprintln!("animtune: destroying the GPU device ({SIMULATE_DEVICE_LOSS_ENV})");
            self.gpu.gpu.device.destroy();
        }
        // Lets wgpu run its device-lost callback (and free finished work) before we draw, after
        // the last frame's GPU work is done (at most one frame in flight: a software driver then
        // never queues a second frame's scenes, and its memory stays flat).
        let gpu_wait = Instant::now();
        let last_frame_done =
            wgpu::PollType::Wait { submission_index: None, timeout: Some(Duration::from_millis(250)) };
        {
            profiling::scope!("last_frame_wait");
            let _ = self.gpu.gpu.device.poll(last_frame_done);
        }
        viewer.overlays.stats.add_phase(Phase::PresentWait, gpu_wait.elapsed());
        if let Some(why) = self.gpu.lost() {
            let message = match self.recover_device() {
                Ok(()) => format!("{why}; recovered on a new device (model and tuning kept)"),
                Err(error) => format!("{why}; no new device yet ({error:#}), retrying"),
            };
            eprintln!("animtune: {message}");
            viewer.error = Some(message);
            if self.gpu.lost().is_some() {
                return (Duration::from_millis(500), None);
            }
        }
        for error in self.gpu.health.take_errors() {
            viewer.error = Some(format!("GPU error: {error}"));
        }
        let step_started = PhaseClock::start();
        {
            profiling::scope!("stage_step");
            viewer.advance(dt_secs);
        }
        viewer.overlays.stats.add_phase(Phase::StageStep, step_started.elapsed());

        let ui_started = PhaseClock::start();
        let input = self.egui_winit.take_egui_input(&self.window);
        let mut output = {
            profiling::scope!("ui_build");
            self.egui_ctx.run_ui(input, |root| viewer.ui(root))
        };
        self.egui_winit.handle_platform_output(&self.window, output.platform_output);
        if let Some(error) = self.gpu.viewport.error.take() {
            viewer.error = Some(format!("cannot show the model on the GPU: {error}"));
        }
        let title = format!("animtune — {}", viewer.stage.source().short_name());
        if self.title != title {
            self.window.set_title(&title);
            self.title = title;
        }
        let mut ui_time = ui_started.elapsed();
        let gpu_started = PhaseClock::start();
        viewer.viewport.texture = {
            profiling::scope!("render_viewport");
            self.gpu.render_viewport(viewer, viewer.viewport.size_pixels)
        };

        // Texture deltas are applied before anything can fail: egui panics on dropped deltas.
        let ViewerGpu { gpu, egui_renderer, .. } = &mut self.gpu;
        for (id, deltas) in output.textures_delta.set.drain() {
            for delta in deltas {
                egui_renderer.update_texture(&gpu.device, &gpu.queue, id, &delta);
            }
        }
        let mut gpu_time = gpu_started.elapsed();
        let tessellate_started = PhaseClock::start();
        let jobs = {
            profiling::scope!("tessellate");
            self.egui_ctx.tessellate(output.shapes, output.pixels_per_point)
        };
        ui_time += tessellate_started.elapsed();
        let repaint_delay =
            output.viewport_output.get(&egui::ViewportId::ROOT).map_or(Duration::from_millis(500), |v| v.repaint_delay);

        let acquire_started = Instant::now();
        let acquired = {
            profiling::scope!("acquire_wait");
            self.surface.get_current_texture()
        };
        let mut swapchain_wait = acquire_started.elapsed();
        let frame = match acquired {
            wgpu::CurrentSurfaceTexture::Success(frame) => Some(frame),
            wgpu::CurrentSurfaceTexture::Suboptimal(frame) => {
                // Draw this one, then reconfigure for the next.
                self.configure();
                Some(frame)
            }
            wgpu::CurrentSurfaceTexture::Outdated | wgpu::CurrentSurfaceTexture::Lost => {
                self.configure();
                None
            }
            _ => None,
        };
        if let Some(frame) = frame {
            let ViewerGpu { gpu, egui_renderer, .. } = &mut self.gpu;
            let (device, queue) = (&gpu.device, &gpu.queue);
            let screen = egui_wgpu::ScreenDescriptor {
                size_in_pixels: [self.config.width, self.config.height],
                pixels_per_point: output.pixels_per_point,
            };
            let encode_started = PhaseClock::start();
            profiling::scope!("encode_submit_present");
            let view = frame.texture.create_view(&wgpu::TextureViewDescriptor::default());
            let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("egui") });
            let mut commands = egui_renderer.update_buffers(device, queue, &mut encoder, &jobs, &screen);
            {
                let mut pass = encoder
                    .begin_render_pass(&wgpu::RenderPassDescriptor {
                        label: Some("egui"),
                        color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                            view: &view,
                            depth_slice: None,
                            resolve_target: None,
                            ops: wgpu::Operations {
                                load: wgpu::LoadOp::Clear(wgpu::Color { r: 0.1, g: 0.1, b: 0.1, a: 1.0 }),
                                store: wgpu::StoreOp::Store,
                            },
                        })],
                        depth_stencil_attachment: None,
                        timestamp_writes: None,
                        occlusion_query_set: None,
                        multiview_mask: None,
                    })
                    .forget_lifetime();
                egui_renderer.render(&mut pass, &jobs, &screen);
            }
            commands.push(encoder.finish());
            queue.submit(commands);
            gpu_time += encode_started.elapsed();
            self.window.pre_present_notify();
            let present_started = Instant::now();
            queue.present(frame);
            swapchain_wait += present_started.elapsed();
        }
        for id in output.textures_delta.free.drain() {
            self.gpu.egui_renderer.free_texture(&id);
        }
        let stats = &mut viewer.overlays.stats;
        stats.add_phase(Phase::UiBuild, ui_time);
        stats.add_phase(Phase::GpuEncodeSubmit, gpu_time);
        stats.add_phase(Phase::PresentWait, swapchain_wait);
        // The thread's CPU time where the OS says it, else wall time without the swapchain waits.
        let cpu = match (cpu_at_start, crate::stage::stats::thread_cpu_time()) {
            (Some(start), Some(end)) => end.saturating_sub(start),
            _ => now.elapsed().saturating_sub(swapchain_wait),
        };
        let animating =
            viewer.stage.transport.playing || viewer.stage.transport.is_fading() || viewer.stage.ragdoll.is_active();
        let delay = if animating || viewer.stage.crowd.crowd.is_some() { Duration::ZERO } else { repaint_delay };
        (delay, Some(cpu))
    }
}

impl ApplicationHandler<Wake> for App {
    fn user_event(&mut self, _event_loop: &ActiveEventLoop, _wake: Wake) {
        if let Some(window) = self.window.as_ref() {
            window.window.request_redraw();
        }
    }

    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.window.is_some() {
            return;
        }
        match WindowState::new(event_loop) {
            Ok(window) => {
                let size = window.window.inner_size();
                if size.height > 0 {
                    self.viewer.frame_camera();
                }
                window.window.request_redraw();
                self.window = Some(window);
            }
            Err(error) => {
                self.fatal = Some(error);
                event_loop.exit();
            }
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _window_id: WindowId, event: WindowEvent) {
        let Some(window) = self.window.as_mut() else { return };
        let response = window.egui_winit.on_window_event(&window.window, &event);
        match event {
            WindowEvent::CloseRequested => {
                self.exit(event_loop);
                return;
            }
            WindowEvent::Resized(_) | WindowEvent::ScaleFactorChanged { .. } => {
                window.configure();
                window.window.request_redraw();
            }
            WindowEvent::RedrawRequested => {
                let (delay, cpu) = window.redraw(&mut self.viewer);
                if let Some(cpu) = cpu {
                    self.viewer.overlays.stats.record_frame(cpu, Instant::now(), crate::process::resident_kib);
                }
                if self.viewer.quit_requested() {
                    self.exit(event_loop);
                    return;
                }
                self.next_repaint = Instant::now() + delay.min(Duration::from_secs(1));
                if delay.is_zero() {
                    window.window.request_redraw();
                }
            }
            _ => {}
        }
        if response.repaint {
            window.window.request_redraw();
        }
    }

    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        if self.exit_at.is_some_and(|at| Instant::now() >= at) {
            self.exit_at = None;
            self.exit(event_loop);
            return;
        }
        let Some(window) = self.window.as_ref() else { return };
        if Instant::now() >= self.next_repaint {
            window.window.request_redraw();
            self.next_repaint = Instant::now() + Duration::from_secs(1);
        }
        let wake = self.exit_at.map_or(self.next_repaint, |at| at.min(self.next_repaint));
        event_loop.set_control_flow(ControlFlow::WaitUntil(wake));
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser as _;

    use crate::stage::compare::{CompareLayout, CompareModes};
    use crate::ui::{ModelSource, Panel, Viewer};

    /// The viewer's command line as the binary parses it ([`super::ViewerLine`], flattened
    /// into `main`'s arguments).
    #[derive(Debug, clap::Parser)]
    struct Line {
        #[command(flatten)]
        line: super::ViewerLine,
    }

    impl std::ops::Deref for Line {
        type Target = super::ViewerLine;
        fn deref(&self) -> &super::ViewerLine {
            &self.line
        }
    }

    /// `line` split into words as a POSIX shell splits it (the copied line is pasted into one).
    fn shell_words(line: &str) -> Vec<String> {
        let script = format!("set -- {line}; for word in \"$@\"; do printf '%s\\0' \"$word\"; done");
        let out = std::process::Command::new("sh").args(["-c", &script]).output().expect("sh runs");
        assert!(out.status.success(), "{line}: {}", String::from_utf8_lossy(&out.stderr));
        let words = String::from_utf8(out.stdout).expect("UTF-8");
        words.split_terminator('\0').map(str::to_owned).collect()
    }

    /// The viewer a copied command line opens (its options applied, one frame drawn).
    fn open(line: &str) -> egui_kittest::Harness<'static, Viewer> {
        let parsed = Line::try_parse_from(shell_words(line)).unwrap_or_else(|e| panic!("{line}: {e}"));
        assert!(parsed.model.is_none(), "{line}");
        let mut opened = viewer();
        parsed.view.apply(&mut opened).unwrap_or_else(|e| panic!("{line}: {e}"));
        let mut harness = whole(opened);
        harness.run();
        harness
    }

    /// A harness showing the whole viewer.
    fn whole(viewer: Viewer) -> egui_kittest::Harness<'static, Viewer> {
        egui_kittest::Harness::builder()
            .with_size([1280.0, 900.0])
            .build_ui_state(|ui, v: &mut Viewer| v.ui(ui), viewer)
    }

    fn viewer() -> Viewer {
        let model = anim::import::load_slice(crate::mannequin::DEFAULT_MODEL_GLB, None).expect("built-in model");
        Viewer::new(model, ModelSource::built_in())
    }

    #[test]
    fn a_copied_command_line_opens_the_same_view() {
        let mut shown = viewer();
        let wave = shown.stage.model().find_clip("Wave").expect("Wave");
        shown.stage.transport.select_clip(wave);
        shown.stage.transport.seek(1.25);
        shown.stage.selection.joint = shown
            .stage
            .model()
            .node_ids()
            .find(|&n| shown.stage.model().node(n).and_then(|n| n.name.as_deref()) == Some("Hand.L"));
        shown.stage.selection.property = anim::Property::Translation;
        let mut interpolation = shown.stage.tuning.interpolation();
        interpolation.mode = anim::InterpolationOverride::Step;
        shown.stage.tuning.set_interpolation(interpolation);
        shown.stage.compare.show(CompareModes {
            layout: CompareLayout::Ghost,
            heatmap: true,
            ..CompareModes::default()
        });
        shown.overlays.skeleton = true;
        shown.panel_in_view = Some(Panel::Curves);
        let line = shown.command_line();
        assert!(line.starts_with("animtune --clip Wave --time 1.250 --joint Hand.L --channel translation"), "{line}");

        let parsed = Line::try_parse_from(shell_words(&line)).unwrap_or_else(|e| panic!("{line}: {e}"));
        let mut opened = viewer();
        parsed.view.apply(&mut opened).expect("applies");
        assert_eq!(opened.stage.transport.clip(), Some(wave));
        assert!((opened.stage.transport.time_secs() - 1.25).abs() < 1e-3);
        assert!(!opened.stage.transport.playing, "--time shows that frame");
        assert_eq!(opened.stage.selection, shown.stage.selection);
        assert_eq!(opened.stage.tuning.interpolation().mode, anim::InterpolationOverride::Step);
        assert_eq!(opened.stage.compare.active(), shown.stage.compare.active());
        assert!(opened.overlays.skeleton);
        assert_eq!(opened.focus_panel, Some(Panel::Curves));
    }

    #[test]
    fn copy_command_line_names_only_the_panel_the_user_is_at_and_round_trips() {
        use egui_kittest::kittest::Queryable as _;
        // Nothing specific: the panel as it opens, no --panel.
        let mut harness = whole(viewer());
        harness.run();
        assert_eq!(harness.state().panel_in_view, None);
        let line = harness.state().command_line();
        assert!(!line.contains("--panel"), "{line}");
        assert_eq!(open(&line).state().panel_in_view, None);

        // The user opened the joint tree (closed by default): --panel joints, which opens it.
        harness.get_by_label("Joints").click();
        harness.run();
        let line = harness.state().command_line();
        assert!(line.ends_with("--panel joints"), "{line}");
        let opened = open(&line);
        assert_eq!(opened.state().panel_in_view, Some(Panel::Joints), "{line}");
        harness.get_by_label("Joints").click();
        harness.run();
        assert_eq!(harness.state().panel_in_view, None, "closed again");

        // The user scrolled the side panel down to a section: that one.
        harness.get_by_label("Record clip").scroll_to_me();
        harness.run();
        let at = harness.state().panel_in_view.expect("scrolled to a section");
        assert!(!matches!(at, Panel::Profile | Panel::Clips), "{at:?}");
        let line = harness.state().command_line();
        assert!(line.ends_with(&format!("--panel {}", at.name())), "{line}");
        let opened = open(&line);
        assert_eq!(opened.state().panel_in_view, Some(at), "{line}");
        // A path with a space in it survives the shell.
        let model = anim::import::load_slice(crate::mannequin::DEFAULT_MODEL_GLB, None).expect("built-in model");
        let shown = Viewer::new(model, ModelSource::file(std::path::Path::new("/tmp/my exports/it's.glb")));
        let parsed = Line::try_parse_from(shell_words(&shown.command_line())).expect("parses");
        assert_eq!(parsed.model.as_deref(), Some(std::path::Path::new("/tmp/my exports/it's.glb")));
    }

    #[test]
    fn open_into_state_flags_name_what_is_wrong() {
        for (args, expected) in [
            (&["animtune", "--joint", "Tail"][..], "node \"Tail\" not found"),
            (&["animtune", "--channel", "colour"][..], "unknown channel \"colour\""),
            (&["animtune", "--clip", "Swim"][..], "clip \"Swim\" not found"),
        ] {
            let parsed = Line::try_parse_from(args).expect("parses");
            let error = parsed.view.apply(&mut viewer()).unwrap_err().to_string();
            assert!(error.contains(expected), "{args:?}: {error}");
        }
        let error = Line::try_parse_from(["animtune", "--panel", "physics"]).map(|_| ()).unwrap_err().to_string();
        assert!(error.contains("unknown panel \"physics\"") && error.contains("curves"), "{error}");
    }
}

//! Adapter and device creation, for headless use and for hosts that bring their own device.

use crate::render::RenderError;

/// A wgpu device and queue with the adapter they came from.
#[derive(Debug)]
pub struct GpuContext {
    /// The adapter (its name shows in reports).
    pub adapter: wgpu::Adapter,
    /// The device.
    pub device: wgpu::Device,
    /// The device's queue.
    pub queue: wgpu::Queue,
}

impl GpuContext {
    /// Create a headless context on the best adapter available: a desktop GPU (Vulkan, Metal,
    /// DX12), else a software one (lavapipe). Honours `WGPU_BACKEND` and friends.
    ///
    /// # Errors
    /// [`RenderError::NoAdapter`] (with what to install) when there is no adapter at all;
    /// [`RenderError::Device`] when the adapter refuses the device.
    pub fn new_headless() -> Result<Self, RenderError> {
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        let options = wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            force_fallback_adapter: false,
            compatible_surface: None,
            apply_limit_buckets: false,
        };
        let adapter = pollster::block_on(instance.request_adapter(&options))
            .map_err(|error| RenderError::NoAdapter { detail: error.to_string() })?;
        let (device, queue) = pollster::block_on(adapter.request_device(&device_descriptor(&adapter)))
            .map_err(|source| RenderError::Device { adapter: adapter.get_info().name, source })?;
        Ok(Self { adapter, device, queue })
    }

    /// A one-line description of the adapter: name and backend.
    pub fn adapter_summary(&self) -> String {
        let info = self.adapter.get_info();
        format!("{} ({:?}, {:?})", info.name, info.backend, info.device_type)
    }
}

/// The device animtune asks for: no optional features, downlevel limits raised to the
/// adapter's resolution limits (texture sizes), so it runs on lavapipe and old GPUs alike.
pub fn device_descriptor(adapter: &wgpu::Adapter) -> wgpu::DeviceDescriptor<'static> {
    wgpu::DeviceDescriptor {
        label: Some("animtune device"),
        required_features: wgpu::Features::empty(),
        required_limits: wgpu::Limits::downlevel_defaults().using_resolution(adapter.limits()),
        experimental_features: wgpu::ExperimentalFeatures::default(),
        memory_hints: wgpu::MemoryHints::MemoryUsage,
        trace: wgpu::Trace::Off,
    }
}

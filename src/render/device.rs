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

/// What went wrong with a device, as reported by wgpu's callbacks.
#[derive(Debug, Clone, Default)]
struct DeviceHealthInner {
    lost: Option<String>,
    errors: Vec<String>,
}

/// Watches one device: wgpu's device-lost callback and its uncaptured-error handler (which
/// otherwise panics) both report here, so the viewer can show the problem and rebuild.
#[derive(Debug, Clone, Default)]
pub struct DeviceHealth {
    inner: std::sync::Arc<std::sync::Mutex<DeviceHealthInner>>,
}

/// Uncaptured errors kept (older ones are dropped).
const MAX_KEPT_ERRORS: usize = 8;

impl DeviceHealth {
    /// Install the callbacks on `device`.
    pub fn watch(device: &wgpu::Device) -> Self {
        let health = Self::default();
        let lost = health.clone();
        device.set_device_lost_callback(move |reason, message| {
            let why = match reason {
                wgpu::DeviceLostReason::Destroyed => "destroyed",
                wgpu::DeviceLostReason::Unknown => "lost",
            };
            lost.with(|h| h.lost = Some(format!("GPU device {why}: {message}")));
        });
        let errors = health.clone();
        device.on_uncaptured_error(std::sync::Arc::new(move |error: wgpu::Error| {
            errors.with(|h| {
                if h.errors.len() >= MAX_KEPT_ERRORS {
                    h.errors.remove(0);
                }
                h.errors.push(error.to_string());
            });
        }));
        health
    }

    fn with<R>(&self, f: impl FnOnce(&mut DeviceHealthInner) -> R) -> R {
        // A panic while holding the lock cannot leave the data inconsistent: keep using it.
        let mut guard = self.inner.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        f(&mut guard)
    }

    /// Why the device was lost, once it was.
    pub fn lost(&self) -> Option<String> {
        self.with(|h| h.lost.clone())
    }

    /// Errors reported since the last call (validation, out of memory), oldest first.
    pub fn take_errors(&self) -> Vec<String> {
        self.with(|h| std::mem::take(&mut h.errors))
    }
}

//! The GPU renderer: wgpu only (no window or UI crate), GPU skinning and morphing in WGSL.
//!
//! | module | owns | may import |
//! |---|---|---|
//! | [`animated`] | per-frame material and visibility values (`KHR_animation_pointer`) | anim |
//! | [`camera`] | orbit/pan/zoom/framing maths, [`Aabb`] | glam |
//! | [`framing`] | animated bounds from CPU skinning | anim, [`camera`] |
//! | [`gpu_data`] | every `#[repr(C)]` struct the shaders read | bytemuck |
//! | [`device`] | adapter/device creation with a clear "no GPU" error | wgpu |
//! | [`mesh`] | `anim::Model` (CPU side) → [`GpuModel`] upload (vertices, morph deltas, textures) | wgpu, image, anim |
//! | [`overlay`] | skeleton lines and joint dots in clip space | anim, glam |
//! | [`renderer`] | pipelines, per-frame buffers, drawing views | everything above |
//! | [`readback`] | texture → RGBA image (256-byte row padding) | wgpu, image |
//! | [`text`] | a tiny bitmap font for labels drawn into read-back images | image |
//!
//! Shaders live in `shaders/*.wgsl` at the repository root and are validated by naga in
//! `tests/shaders.rs`.

pub mod animated;
pub mod camera;
pub mod device;
pub mod framing;
pub mod gpu_data;
pub mod mesh;
pub mod overlay;
pub mod readback;
pub mod renderer;
pub mod shot;
pub mod text;

pub use camera::{Aabb, OrbitCamera};
pub use device::{DeviceHealth, GpuContext};
pub use mesh::{GpuMesh, GpuModel};
pub use renderer::{CrowdView, InstanceDesc, Layer, RenderTarget, Renderer, ViewDesc, Viewport};

/// Errors of the renderer.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// No GPU adapter at all: neither a hardware driver nor a software one.
    #[error(
        "no GPU adapter found ({detail}). animtune renders with Vulkan, Metal, DX12 or OpenGL; on a \
         machine without a GPU install a software Vulkan driver (Debian/Ubuntu: \
         `apt-get install mesa-vulkan-drivers libvulkan1`)"
    )]
    NoAdapter {
        /// What wgpu reported.
        detail: String,
    },
    /// The adapter refused to create a device.
    #[error("cannot create a GPU device on {adapter}: {source}")]
    Device {
        /// Adapter name.
        adapter: String,
        /// The wgpu error.
        source: wgpu::RequestDeviceError,
    },
    /// A material's image could not be decoded.
    #[error("cannot decode image {image} ({mime}): {source}")]
    ImageDecode {
        /// Index of the image in the model.
        image: usize,
        /// Its MIME type, when known.
        mime: String,
        /// The decoder's error.
        source: image::ImageError,
    },
    /// A material's KTX2 (`KHR_texture_basisu`) image could not be transcoded.
    #[error("cannot decode image {image}: {source}")]
    Ktx2Decode {
        /// Index of the image in the model.
        image: usize,
        /// What is wrong with it.
        source: decode::ktx2::Ktx2Error,
    },
    /// Reading a frame back failed.
    #[error("cannot read the frame back: {0}")]
    Readback(String),
    /// A shot's layers do not fit the model.
    #[error("cannot build the layers: {0}")]
    Layers(#[from] anim::LayerError),
    /// A requested size is zero or beyond the device limit.
    #[error("invalid render size {width}×{height} (limit {limit})")]
    InvalidSize {
        /// Requested width in pixels.
        width: u32,
        /// Requested height in pixels.
        height: u32,
        /// Largest texture side the device supports.
        limit: u32,
    },
}

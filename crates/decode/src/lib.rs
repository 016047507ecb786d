//! Decoders of compressed glTF data for animtune, behind the core's
//! [`anim::import::Decoder`] seam:
//!
//! * `EXT_meshopt_compression` / `KHR_meshopt_compression`: [`meshopt`], written here in safe
//!   Rust (vertex codec versions 0 and 1, triangle and index-sequence codecs, all four filters).
//! * `KHR_draco_mesh_compression`: [`draco`], over the pure-Rust `draco-core`, with the
//!   stream's declared counts checked against the accessors before it decodes.
//! * `KHR_texture_basisu`: [`ktx2`], KTX2 containers checked here, Basis Universal (ETC1S,
//!   UASTC) transcoded to RGBA8 by the pure-Rust `basisu` crate. The importer checks each KTX2
//!   header against its limits ([`Decoder::inspect_image`]); the renderer transcodes.
//! * `EXT_texture_webp` is decoded by the renderer (the `image` crate); [`Decoders`] says it is
//!   supported so the importer picks WebP sources.
//!
//! [`load_path`] and [`load_slice`] are the importer with these decoders: what the command
//! line and the viewer call.

// Import errors are cold and carry the object's name; their size does not matter.
#![allow(clippy::result_large_err)]

pub mod draco;
pub mod ktx2;
pub mod meshopt;

use std::path::Path;

use anim::import::{
    DecodedDraco, Decoder, DracoPrimitive, ImageSize, Limits, MeshoptFilter, MeshoptMode, MeshoptView, PendingDraco,
    meshopt_stride_suits,
};
use anim::{ImportError, Model};

/// Every decoder animtune ships.
#[derive(Debug, Clone, Copy, Default)]
pub struct Decoders;

/// The extensions [`Decoders`] reads (image formats: the renderer decodes them).
pub const SUPPORTED: &[&str] =
    &["EXT_meshopt_compression", "KHR_draco_mesh_compression", "EXT_texture_webp", "KHR_texture_basisu"];

impl Decoder for Decoders {
    fn supports(&self, extension: &str) -> bool {
        SUPPORTED.contains(&extension)
    }

    fn decode_meshopt(&self, view: &MeshoptView<'_>, out: &mut [u8]) -> Result<(), String> {
        let stride = view.byte_stride;
        if !meshopt_stride_suits(view.mode, view.filter, stride as u64) {
            return Err(if view.filter != MeshoptFilter::None && view.mode != MeshoptMode::Attributes {
                format!("the {:?} filter applies to attributes, not to {:?}", view.filter, view.mode)
            } else {
                format!("a byte stride of {stride} does not suit mode {:?} with filter {:?}", view.mode, view.filter)
            });
        }
        let result = match view.mode {
            MeshoptMode::Attributes => meshopt::decode_vertex_buffer(out, view.count, stride, view.compressed),
            MeshoptMode::Triangles => meshopt::decode_index_buffer(out, view.count, stride, view.compressed),
            MeshoptMode::Indices => meshopt::decode_index_sequence(out, view.count, stride, view.compressed),
        };
        result.map_err(|e| e.to_string())?;
        match view.filter {
            MeshoptFilter::None => Ok(()),
            MeshoptFilter::Octahedral => meshopt::filter_octahedral(out, stride),
            MeshoptFilter::Quaternion => {
                meshopt::filter_quaternion(out);
                Ok(())
            }
            MeshoptFilter::Exponential => {
                meshopt::filter_exponential(out);
                Ok(())
            }
            MeshoptFilter::Color => meshopt::filter_color(out, stride),
        }
        .map_err(|e| e.to_string())
    }

    fn decode_draco(&self, primitive: &DracoPrimitive<'_>) -> Result<DecodedDraco, String> {
        draco::decode(primitive)
    }

    /// Large files' primitives are decoded in parallel ([`draco::decode_all`]).
    fn decode_draco_all(&self, primitives: &[DracoPrimitive<'_>]) -> Vec<Result<DecodedDraco, String>> {
        draco::decode_all(primitives, draco::PARALLEL_MIN_VERTICES)
    }

    /// The primitives decode on background threads ([`draco::start`]) while the importer reads
    /// the rest of the file; large files' in parallel.
    fn start_draco_all(&self, primitives: &[DracoPrimitive<'_>]) -> PendingDraco<'_> {
        let pending = draco::start(primitives, draco::PARALLEL_MIN_VERTICES);
        PendingDraco::new(move || pending.wait())
    }

    fn inspect_image(&self, mime_type: Option<&str>, bytes: &[u8]) -> Option<Result<ImageSize, String>> {
        (mime_type == Some("image/ktx2") || ktx2::is_ktx2(bytes)).then(|| {
            ktx2::inspect(bytes)
                .map(|info| ImageSize { width: info.width, height: info.height })
                .map_err(|e| e.to_string())
        })
    }
}

/// Import a `.glb`/`.gltf` file with every decoder ([`anim::import::load_path_with`]).
///
/// # Errors
/// The importer's error, naming the glTF object at fault.
pub fn load_path(path: &Path, limits: &Limits) -> Result<Model, ImportError> {
    anim::import::load_path_with(path, limits, &Decoders)
}

/// Import from bytes with every decoder ([`anim::import::load_slice_with`]).
///
/// # Errors
/// The importer's error, naming the glTF object at fault.
pub fn load_slice(bytes: &[u8], base_dir: Option<&Path>, limits: &Limits) -> Result<Model, ImportError> {
    anim::import::load_slice_with(bytes, base_dir, limits, &Decoders)
}

thread_local! {
    /// True while this thread runs a third-party decoder under [`quiet_catch_unwind`].
    static IN_DECODER: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// `catch_unwind` whose panic is not printed: a panic inside a third-party decoder (Draco, Basis Universal) is a malformed file,
/// reported as an error, not a crash report on stderr. The panic hook is wrapped once; panics
/// on other threads, or outside the decoder, still reach the previous hook.
pub(crate) fn quiet_catch_unwind<T>(f: impl FnOnce() -> T + std::panic::UnwindSafe) -> std::thread::Result<T> {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !IN_DECODER.with(std::cell::Cell::get) {
                previous(info);
            }
        }));
    });
    IN_DECODER.with(|flag| flag.set(true));
    let result = std::panic::catch_unwind(f);
    IN_DECODER.with(|flag| flag.set(false));
    result
}

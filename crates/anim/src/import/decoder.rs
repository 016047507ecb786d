//! The seam between the pure importer and the decoders of compressed glTF data
//! (`EXT_meshopt_compression`, `KHR_meshopt_compression`, `KHR_draco_mesh_compression`).
//!
//! The core parses the JSON, checks every size against [`Limits`](super::Limits) and only then
//! asks a [`Decoder`] for bytes: a meshopt buffer view's `count × byteStride` bytes into a
//! buffer the core allocated, or a Draco primitive's attributes laid out exactly as its
//! accessors declare them. The decoded bytes become ordinary buffer views, so the accessor code
//! (strides, normalized integers, magnitude checks) reads them like any other data. The decoders
//! live outside the core (the `animtune-decode` crate), keeping `anim` free of codec code.

/// How a meshopt buffer view was encoded (`mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MeshoptMode {
    /// `ATTRIBUTES`: vertex (or key) data, `byteStride` a multiple of 4 up to 256.
    Attributes,
    /// `TRIANGLES`: a triangle index buffer, 2- or 4-byte indices.
    Triangles,
    /// `INDICES`: any index sequence, 2- or 4-byte indices.
    Indices,
}

/// The filter applied after decoding a meshopt `ATTRIBUTES` view (`filter`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MeshoptFilter {
    /// `NONE`.
    None,
    /// `OCTAHEDRAL`: unit vectors (normals, tangents) in 4 or 8 bytes.
    Octahedral,
    /// `QUATERNION`: unit quaternions (rotation keys) in 8 bytes.
    Quaternion,
    /// `EXPONENTIAL`: floats as a shared exponent and a 24-bit mantissa.
    Exponential,
    /// `COLOR` (`KHR_meshopt_compression` only): `YCoCg` colours in 4 or 8 bytes.
    Color,
}

/// A meshopt-compressed buffer view, as the core hands it to a [`Decoder`].
#[derive(Debug, Clone, Copy)]
pub struct MeshoptView<'a> {
    /// The extension that declared it (`EXT_meshopt_compression` or `KHR_meshopt_compression`).
    pub extension: &'static str,
    /// The compressed bytes.
    pub compressed: &'a [u8],
    /// Number of elements.
    pub count: usize,
    /// Bytes per element.
    pub byte_stride: usize,
    /// The codec.
    pub mode: MeshoptMode,
    /// The filter.
    pub filter: MeshoptFilter,
}

/// Whether a meshopt view of `mode` with `filter` may have elements of `byte_stride` bytes:
/// filters only on attributes (octahedral and colour at 4 or 8 bytes, quaternion at 8,
/// exponential and none at a multiple of 4 up to 256), indices in 2 or 4 bytes. The importer
/// refuses other views before asking a decoder; decoders refuse them too, not taking the
/// request on trust.
pub fn meshopt_stride_suits(mode: MeshoptMode, filter: MeshoptFilter, byte_stride: u64) -> bool {
    match (mode, filter) {
        (MeshoptMode::Attributes, MeshoptFilter::None | MeshoptFilter::Exponential) => {
            byte_stride.is_multiple_of(4) && (4..=256).contains(&byte_stride)
        }
        (MeshoptMode::Attributes, MeshoptFilter::Octahedral | MeshoptFilter::Color) => {
            byte_stride == 4 || byte_stride == 8
        }
        (MeshoptMode::Attributes, MeshoptFilter::Quaternion) => byte_stride == 8,
        (_, MeshoptFilter::None) => byte_stride == 2 || byte_stride == 4,
        _ => false,
    }
}

/// The component type the core wants a decoded Draco attribute in (the accessor's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DracoComponent {
    /// `BYTE`.
    I8,
    /// `UNSIGNED_BYTE`.
    U8,
    /// `SHORT`.
    I16,
    /// `UNSIGNED_SHORT`.
    U16,
    /// `UNSIGNED_INT`.
    U32,
    /// `FLOAT`.
    F32,
}

impl DracoComponent {
    /// Bytes per component.
    pub fn size(self) -> usize {
        match self {
            Self::I8 | Self::U8 => 1,
            Self::I16 | Self::U16 => 2,
            Self::U32 | Self::F32 => 4,
        }
    }
}

/// One attribute the core wants from a Draco primitive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DracoAttribute {
    /// The glTF semantic (`POSITION`, `JOINTS_0`, …), for messages.
    pub semantic: String,
    /// The Draco attribute's unique id (the extension's `attributes` map).
    pub unique_id: u32,
    /// Components per element (the accessor's type).
    pub components: usize,
    /// The accessor's component type.
    pub component: DracoComponent,
    /// True when the accessor is normalized (the decoded integers are kept as they are).
    pub normalized: bool,
}

/// A Draco-compressed primitive, as the core hands it to a [`Decoder`]. The counts come from
/// the primitive's accessors and were checked against the import limits: a stream that
/// declares more points or faces must be refused before it is decoded.
#[derive(Debug, Clone)]
pub struct DracoPrimitive<'a> {
    /// The compressed bytes (the extension's buffer view).
    pub compressed: &'a [u8],
    /// The attributes wanted, in the core's order.
    pub attributes: Vec<DracoAttribute>,
    /// Vertices every attribute accessor declares.
    pub vertex_count: usize,
    /// Indices the `indices` accessor declares (three per triangle); `None` without one.
    pub index_count: Option<usize>,
}

/// What a [`Decoder`] returns for a Draco primitive.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DecodedDraco {
    /// Triangle indices, three per face.
    pub indices: Vec<u32>,
    /// Per requested attribute, `vertex_count × components` little-endian values of the
    /// requested component type.
    pub attributes: Vec<Vec<u8>>,
}

/// The results of [`Decoder::start_draco_all`]: Draco primitives being decoded (or already
/// decoded) while the importer goes on.
pub struct PendingDraco<'a> {
    wait: Box<dyn FnOnce() -> Vec<Result<DecodedDraco, String>> + 'a>,
}

impl<'a> PendingDraco<'a> {
    /// Results that are already there.
    pub fn ready(results: Vec<Result<DecodedDraco, String>>) -> Self {
        Self::new(move || results)
    }

    /// Results that `wait` gives when called (it blocks until they are there).
    pub fn new(wait: impl FnOnce() -> Vec<Result<DecodedDraco, String>> + 'a) -> Self {
        Self { wait: Box::new(wait) }
    }

    /// Block until every primitive is decoded (or given up), and return one result per primitive
    /// in the order [`Decoder::start_draco_all`] got them.
    pub fn wait(self) -> Vec<Result<DecodedDraco, String>> {
        (self.wait)()
    }
}

impl std::fmt::Debug for PendingDraco<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PendingDraco")
    }
}

/// Width and height of an image, read from its header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageSize {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
}

/// Decoders of compressed geometry and animation data. Implementations must treat the bytes as
/// hostile: never panic, never read out of bounds, never allocate more than the sizes the core
/// passes in.
pub trait Decoder: Sync {
    /// True when this decoder reads `extension` (e.g. `"EXT_meshopt_compression"`, or an image
    /// extension such as `"EXT_texture_webp"` whose images the application can decode).
    fn supports(&self, extension: &str) -> bool;

    /// Decode a meshopt buffer view into `out`, which holds exactly `count × byte_stride` bytes.
    ///
    /// # Errors
    /// A message saying what is wrong with the data.
    fn decode_meshopt(&self, view: &MeshoptView<'_>, out: &mut [u8]) -> Result<(), String>;

    /// Decode a Draco primitive.
    ///
    /// # Errors
    /// A message saying what is wrong with the data, or that it does not match the accessors.
    fn decode_draco(&self, primitive: &DracoPrimitive<'_>) -> Result<DecodedDraco, String>;

    /// Decode every Draco primitive of a file, results in the same order. The primitives are
    /// independent: a decoder may decode them in parallel. The default decodes them in turn.
    fn decode_draco_all(&self, primitives: &[DracoPrimitive<'_>]) -> Vec<Result<DecodedDraco, String>> {
        primitives.iter().map(|p| self.decode_draco(p)).collect()
    }

    /// Start decoding every Draco primitive of a file and return at once: the importer reads the
    /// rest of the file (images, nodes, skins, animations) meanwhile and calls
    /// [`PendingDraco::wait`] when it builds the meshes. The primitives' bytes are borrowed for
    /// this call only: a decoder that works in the background copies what it needs. Dropping the
    /// [`PendingDraco`] abandons the work (the importer does when the file fails first). The
    /// default decodes them now, with [`Decoder::decode_draco_all`].
    fn start_draco_all(&self, primitives: &[DracoPrimitive<'_>]) -> PendingDraco<'_> {
        PendingDraco::ready(self.decode_draco_all(primitives))
    }

    /// Check the container of an image in a format this decoder transcodes for the renderer
    /// (KTX2 for `KHR_texture_basisu`) and return its size, which the core checks against
    /// [`Limits::max_image_pixels`](super::Limits::max_image_pixels). `None` for formats it
    /// does not read (PNG, JPEG and WebP are decoded by the renderer). The default reads none.
    ///
    /// # Errors
    /// A message saying what is wrong with the container.
    fn inspect_image(&self, _mime_type: Option<&str>, _bytes: &[u8]) -> Option<Result<ImageSize, String>> {
        None
    }
}

/// The decoder of the core alone: supports nothing, so compressed files load from their
/// uncompressed fallbacks when they have them and are refused, naming the extension, when they
/// do not.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoDecoder;

impl Decoder for NoDecoder {
    fn supports(&self, _extension: &str) -> bool {
        false
    }

    fn decode_meshopt(&self, view: &MeshoptView<'_>, _out: &mut [u8]) -> Result<(), String> {
        Err(format!("{} needs a decoder (animtune-decode)", view.extension))
    }

    fn decode_draco(&self, _primitive: &DracoPrimitive<'_>) -> Result<DecodedDraco, String> {
        Err("KHR_draco_mesh_compression needs a decoder (animtune-decode)".to_owned())
    }
}

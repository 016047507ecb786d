//! `KHR_texture_basisu`: KTX2 textures holding Basis Universal data (ETC1S with `BasisLZ`, or
//! UASTC with or without Zstandard supercompression), transcoded on the CPU to RGBA8 by the
//! pure-Rust `basisu` transcoder.
//!
//! The container is read and checked here first, field by field, against the KTX2 rules and
//! the extension's (2D, one layer, one face, `VK_FORMAT_UNDEFINED`): every level, the
//! supercompression global data and each ETC1S slice must lie inside the file, a UASTC level
//! must hold exactly 16 bytes per 4×4 block (a Zstandard level must inflate to exactly that),
//! and the image must fit the caller's pixel limit. Only then is the transcoder given the
//! bytes, under `catch_unwind`, with an output buffer this module sized itself. So hostile
//! headers (truncations, lying level sizes, huge dimensions) are named errors, not allocations.

use basisu::{DecodeFlags, TargetFormat, Transcoder};

/// The 12 bytes every KTX2 file starts with.
const MAGIC: [u8; 12] = [0xAB, b'K', b'T', b'X', b' ', b'2', b'0', 0xBB, 0x0D, 0x0A, 0x1A, 0x0A];
/// Header (80 bytes) before the level index.
const HEADER_BYTES: usize = 80;
/// One level index entry: byte offset, byte length, uncompressed byte length.
const LEVEL_ENTRY_BYTES: usize = 24;
/// `BasisLZ` global data header: endpoint and selector counts, three payload lengths and the
/// extended length.
const BASISLZ_HEADER_BYTES: usize = 20;
/// One `BasisLZ` image descriptor: flags, RGB slice offset and length, alpha slice offset and
/// length.
const BASISLZ_IMAGE_BYTES: usize = 20;

/// The Basis Universal codec of a KTX2 texture (its data format descriptor's colour model).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Codec {
    /// ETC1S, supercompressed with `BasisLZ` (colour model 163).
    Etc1s,
    /// UASTC LDR 4×4 (colour model 166).
    Uastc,
}

/// How the level data is supercompressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Supercompression {
    /// None (UASTC).
    None,
    /// `BasisLZ` (ETC1S): codebooks in the global data, entropy-coded slices per level.
    BasisLz,
    /// Zstandard over each whole level (UASTC).
    Zstandard,
}

/// What a checked KTX2 header declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ktx2Info {
    /// Level 0 width in pixels.
    pub width: u32,
    /// Level 0 height in pixels.
    pub height: u32,
    /// Mip levels stored.
    pub levels: u32,
    /// The codec.
    pub codec: Codec,
    /// The supercompression scheme.
    pub supercompression: Supercompression,
    /// The texture carries alpha.
    pub has_alpha: bool,
}

impl Ktx2Info {
    /// Width and height of mip `level` (halved per level, at least 1).
    pub fn level_size(&self, level: u32) -> (u32, u32) {
        ((self.width >> level).max(1), (self.height >> level).max(1))
    }
}

/// An RGBA8 image (sRGB-encoded colour, straight alpha), rows top to bottom.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rgba8 {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// The mip level of the file it was transcoded from.
    pub level: u32,
    /// `width × height × 4` bytes.
    pub pixels: Vec<u8>,
}

/// Why a KTX2 texture cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Ktx2Error {
    /// The container breaks a KTX2 or `KHR_texture_basisu` rule.
    #[error("KTX2: {0}")]
    Invalid(String),
    /// The image is larger than the caller allows.
    #[error("KTX2 image of {width}×{height} = {pixels} pixels exceeds the limit of {limit} pixels")]
    TooLarge {
        /// Width of the level that would be decoded.
        width: u32,
        /// Its height.
        height: u32,
        /// `width × height`.
        pixels: u64,
        /// The limit.
        limit: u64,
    },
    /// The container is sound but the transcoder refused (or failed on) the data.
    #[error("KTX2: the Basis Universal data of level {level} cannot be transcoded: {reason}")]
    Transcode {
        /// The level.
        level: u32,
        /// What the transcoder said.
        reason: String,
    },
}

fn invalid(message: impl Into<String>) -> Ktx2Error {
    Ktx2Error::Invalid(message.into())
}

/// True when `bytes` start with the KTX2 identifier.
pub fn is_ktx2(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC)
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    bytes.get(at..at + 4).map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    bytes.get(at..at + 8).map_or(0, |b| {
        let mut le = [0u8; 8];
        le.copy_from_slice(b);
        u64::from_le_bytes(le)
    })
}

/// `offset..offset + length` when it lies inside a file of `file_len` bytes.
fn range_in(what: &str, offset: u64, length: u64, file_len: usize) -> Result<std::ops::Range<usize>, Ktx2Error> {
    match offset.checked_add(length) {
        Some(end) if end <= file_len as u64 => Ok(offset as usize..end as usize),
        _ => Err(invalid(format!(
            "{what} (bytes {offset}..{}) lies outside the {file_len}-byte file",
            offset as u128 + length as u128
        ))),
    }
}

/// 4×4 blocks of a `width × height` image.
fn blocks(width: u32, height: u32) -> u64 {
    u64::from(width.div_ceil(4)) * u64::from(height.div_ceil(4))
}

/// Read and check the container: header, data format descriptor, level index and (ETC1S) the
/// `BasisLZ` global data and slice ranges. Allocates nothing.
///
/// # Errors
/// [`Ktx2Error::Invalid`] naming the first field that breaks a rule.
pub fn inspect(bytes: &[u8]) -> Result<Ktx2Info, Ktx2Error> {
    if !is_ktx2(bytes) {
        return Err(invalid("not a KTX2 file (wrong identifier)"));
    }
    if bytes.len() < HEADER_BYTES + LEVEL_ENTRY_BYTES {
        return Err(invalid(format!("the file is truncated: {} bytes, less than a header and one level", bytes.len())));
    }
    let field = |at: usize| u32_at(bytes, at);
    let vk_format = field(12);
    if vk_format != 0 {
        return Err(invalid(format!(
            "vkFormat {vk_format} is not VK_FORMAT_UNDEFINED: not Basis Universal data (KHR_texture_basisu)"
        )));
    }
    if field(16) != 1 {
        return Err(invalid(format!("typeSize {} must be 1 for Basis Universal data", field(16))));
    }
    let (width, height, depth) = (field(20), field(24), field(28));
    let (layers, faces, level_count, scheme) = (field(32), field(36), field(40), field(44));
    if width == 0 || height == 0 {
        return Err(invalid(format!("a {width}×{height} image is not a 2D texture")));
    }
    if depth != 0 {
        return Err(invalid(format!("pixelDepth {depth}: 3D textures are not glTF textures")));
    }
    if layers != 0 {
        return Err(invalid(format!("layerCount {layers}: array textures are not glTF textures")));
    }
    if faces != 1 {
        return Err(invalid(format!("faceCount {faces}: cube maps are not glTF textures")));
    }
    let max_levels = 32 - width.max(height).leading_zeros();
    if level_count == 0 || level_count > max_levels {
        return Err(invalid(format!(
            "levelCount {level_count}: a {width}×{height} image has 1 to {max_levels} mip levels"
        )));
    }
    let index_end = HEADER_BYTES + level_count as usize * LEVEL_ENTRY_BYTES;
    if index_end > bytes.len() {
        return Err(invalid(format!(
            "the file is truncated: {} bytes, its level index of {level_count} levels ends at byte {index_end}",
            bytes.len()
        )));
    }

    // Data format descriptor: the colour model says ETC1S or UASTC.
    let dfd = range_in("the data format descriptor", u64::from(field(48)), u64::from(field(52)), bytes.len())?;
    if dfd.len() != 44 && dfd.len() != 60 {
        return Err(invalid(format!(
            "a {}-byte data format descriptor is not one of Basis Universal's (44 or 60 bytes)",
            dfd.len()
        )));
    }
    let dfd_word = |i: usize| u32_at(bytes, dfd.start + 4 * i);
    let model = dfd_word(3) & 0xff;
    let transfer = (dfd_word(3) >> 16) & 0xff;
    let codec = match model {
        163 => Codec::Etc1s,
        166 => Codec::Uastc,
        other => {
            return Err(invalid(format!(
                "colour model {other} is neither ETC1S (163) nor UASTC (166), the two KHR_texture_basisu allows"
            )));
        }
    };
    if transfer != 1 && transfer != 2 {
        return Err(invalid(format!("transfer function {transfer} is neither linear (1) nor sRGB (2)")));
    }
    let has_alpha = match codec {
        // A second sample (the alpha slice) makes the descriptor 60 bytes long.
        Codec::Etc1s => dfd.len() == 60,
        // Sample 0's channel: RGBA (3) or RRRG (5) carry alpha.
        Codec::Uastc => matches!((dfd_word(7) >> 24) & 0x0f, 3 | 5),
    };
    let supercompression = match (codec, scheme) {
        (Codec::Etc1s, 1) => Supercompression::BasisLz,
        (Codec::Uastc, 0) => Supercompression::None,
        (Codec::Uastc, 2) => Supercompression::Zstandard,
        (Codec::Etc1s, other) => {
            return Err(invalid(format!("ETC1S data needs BasisLZ supercompression (1), not scheme {other}")));
        }
        (Codec::Uastc, other) => {
            return Err(invalid(format!("UASTC data is stored plain (0) or with Zstandard (2), not scheme {other}")));
        }
    };
    range_in("the key/value data", u64::from(field(56)), u64::from(field(60)), bytes.len())?;
    let sgd = range_in("the supercompression global data", u64_at(bytes, 64), u64_at(bytes, 72), bytes.len())?;

    let info = Ktx2Info { width, height, levels: level_count, codec, supercompression, has_alpha };
    let mut level_ranges = Vec::with_capacity(level_count as usize);
    for level in 0..level_count {
        let at = HEADER_BYTES + level as usize * LEVEL_ENTRY_BYTES;
        let (offset, length, uncompressed) = (u64_at(bytes, at), u64_at(bytes, at + 8), u64_at(bytes, at + 16));
        let range = range_in(&format!("level {level}"), offset, length, bytes.len())?;
        if length == 0 {
            return Err(invalid(format!("level {level} is empty")));
        }
        let (w, h) = info.level_size(level);
        let expected = blocks(w, h) * 16;
        match supercompression {
            Supercompression::None if length != expected || uncompressed != expected => {
                return Err(invalid(format!(
                    "level {level} ({w}×{h}) holds {length} bytes (uncompressed {uncompressed}); \
                     UASTC needs 16 bytes per 4×4 block: {expected}"
                )));
            }
            Supercompression::Zstandard if uncompressed != expected => {
                return Err(invalid(format!(
                    "level {level} ({w}×{h}) declares {uncompressed} uncompressed bytes; \
                     UASTC needs 16 bytes per 4×4 block: {expected}"
                )));
            }
            Supercompression::BasisLz if uncompressed != 0 => {
                return Err(invalid(format!(
                    "level {level} declares {uncompressed} uncompressed bytes; BasisLZ levels declare 0"
                )));
            }
            _ => {}
        }
        level_ranges.push(range);
    }

    match supercompression {
        Supercompression::BasisLz => check_basislz(bytes, &sgd, &level_ranges, has_alpha)?,
        Supercompression::None | Supercompression::Zstandard if !sgd.is_empty() => {
            return Err(invalid(format!("UASTC data has no supercompression global data, found {} bytes", sgd.len())));
        }
        _ => {}
    }
    Ok(info)
}

/// The `BasisLZ` global data: its header, one image descriptor per level, and the codebooks and
/// tables filling the rest exactly; each level's slices inside that level's bytes.
fn check_basislz(
    bytes: &[u8],
    sgd: &std::ops::Range<usize>,
    levels: &[std::ops::Range<usize>],
    has_alpha: bool,
) -> Result<(), Ktx2Error> {
    let descriptors = BASISLZ_IMAGE_BYTES * levels.len();
    if sgd.len() < BASISLZ_HEADER_BYTES + descriptors {
        return Err(invalid(format!(
            "the BasisLZ global data of {} bytes cannot hold its header and {} image descriptors",
            sgd.len(),
            levels.len()
        )));
    }
    let at = |offset: usize| u32_at(bytes, sgd.start + offset);
    let (endpoints, selectors) = (at(0) & 0xffff, at(0) >> 16);
    if endpoints == 0 || selectors == 0 {
        return Err(invalid(format!("the BasisLZ codebooks hold {endpoints} endpoints and {selectors} selectors")));
    }
    let payload: u64 = (1..5).map(|i| u64::from(at(4 * i))).sum();
    let declared = (BASISLZ_HEADER_BYTES + descriptors) as u64 + payload;
    if declared != sgd.len() as u64 {
        return Err(invalid(format!(
            "the BasisLZ global data is {} bytes but its header and codebook lengths add up to {declared}",
            sgd.len()
        )));
    }
    for (level, range) in levels.iter().enumerate() {
        let desc = sgd.start + BASISLZ_HEADER_BYTES + BASISLZ_IMAGE_BYTES * level;
        let field = |i: usize| u64::from(u32_at(bytes, desc + 4 * i));
        let mut slices = vec![("RGB", field(1), field(2))];
        if has_alpha {
            slices.push(("alpha", field(3), field(4)));
        }
        for (name, offset, length) in slices {
            if length == 0 || offset + length > range.len() as u64 {
                return Err(invalid(format!(
                    "the {name} slice of level {level} (bytes {offset}..{}) lies outside the level's {} bytes",
                    offset + length,
                    range.len()
                )));
            }
        }
    }
    Ok(())
}

/// The level to decode: the largest whose sides are at most `max_side` (the GPU's texture
/// limit), else the smallest stored.
pub fn pick_level(info: &Ktx2Info, max_side: u32) -> u32 {
    (0..info.levels)
        .find(|&level| {
            let (w, h) = info.level_size(level);
            w <= max_side && h <= max_side
        })
        .unwrap_or(info.levels - 1)
}

/// Check the container ([`inspect`]), pick the largest level whose sides fit `max_side`, check
/// its size against `max_pixels`, then transcode it to RGBA8.
///
/// # Errors
/// [`Ktx2Error`]: an invalid container, a level over the pixel limit, or data the transcoder
/// refuses.
pub fn decode_rgba8(bytes: &[u8], max_side: u32, max_pixels: u64) -> Result<Rgba8, Ktx2Error> {
    let info = inspect(bytes)?;
    let level = pick_level(&info, max_side.max(1));
    let (width, height) = info.level_size(level);
    let pixels = u64::from(width) * u64::from(height);
    if pixels > max_pixels {
        return Err(Ktx2Error::TooLarge { width, height, pixels, limit: max_pixels });
    }
    let transcode_error = |reason: String| Ktx2Error::Transcode { level, reason };
    let size = pixels as usize * 4;
    let mut out = Vec::new();
    out.try_reserve_exact(size).map_err(|e| transcode_error(format!("cannot allocate {size} bytes: {e}")))?;
    out.resize(size, 0);
    // The output buffer is only read when the transcode returned normally.
    let result = crate::quiet_catch_unwind(std::panic::AssertUnwindSafe(|| {
        let transcoder = Transcoder::new(bytes).map_err(describe)?;
        let expected = transcoder.output_size(level, TargetFormat::Rgba32).map_err(describe)?;
        if expected != size || transcoder.image_level_info(level).map(|l| (l.width, l.height)) != Ok((width, height)) {
            return Err(format!("the transcoder reads level {level} as {expected} bytes, not {width}×{height}"));
        }
        transcoder
            .transcode_into(level, TargetFormat::Rgba32, DecodeFlags::NONE, &mut out)
            .map_err(|e| format!("{e:?}"))
    }));
    match result {
        Ok(Ok(())) => Ok(Rgba8 { width, height, level, pixels: out }),
        Ok(Err(reason)) => Err(transcode_error(reason)),
        Err(_) => Err(transcode_error("the transcoder failed on malformed data".to_owned())),
    }
}

/// The transcoder's error in words. It reports corrupt slice data as an unsupported feature
/// (its decoders return nothing), which this container, already checked, cannot be.
fn describe(error: basisu::Error) -> String {
    match error {
        basisu::Error::InvalidData => "its codebooks or tables are corrupt".to_owned(),
        basisu::Error::Truncated => "its data is truncated".to_owned(),
        basisu::Error::UnsupportedFeature(_) => "its compressed blocks are corrupt".to_owned(),
        other => format!("{other:?}"),
    }
}

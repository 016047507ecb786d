//! The meshopt codecs of `EXT_meshopt_compression` / `KHR_meshopt_compression`, decoded in safe
//! Rust: the vertex (attribute) codec, versions 0 and 1; the triangle index codec, versions 0
//! and 1; the index sequence codec; and the octahedral, quaternion, exponential and colour
//! filters. Written from the bitstream description in the extension specification (and checked
//! against files written by meshoptimizer's own encoder through gltf-transform). Every read is
//! bounds-checked: malformed data gives an error, never a panic or an out-of-bounds access.

use std::fmt;

/// Why a meshopt stream could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MeshoptError {
    /// The header byte is not one of this codec's, or names an unknown version.
    BadHeader(u8),
    /// The data ends before the stream does.
    Truncated,
    /// Bytes are left over after the stream, or the stream disagrees with its own framing.
    Malformed(&'static str),
    /// The request itself is impossible (stride, count).
    BadRequest(String),
}

impl fmt::Display for MeshoptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::BadHeader(byte) => write!(f, "meshopt header byte 0x{byte:02x} is not a known codec version"),
            Self::Truncated => f.write_str("meshopt data is truncated"),
            Self::Malformed(what) => write!(f, "malformed meshopt data: {what}"),
            Self::BadRequest(what) => write!(f, "{what}"),
        }
    }
}

impl std::error::Error for MeshoptError {}

type Result<T> = std::result::Result<T, MeshoptError>;

const VERTEX_HEADER: u8 = 0xa0;
const INDEX_HEADER: u8 = 0xe0;
const SEQUENCE_HEADER: u8 = 0xd0;
const BLOCK_BYTES: usize = 8192;
const BLOCK_MAX_VERTICES: usize = 256;
const GROUP: usize = 16;
/// Each group's encoding reads at most this many bytes; the encoder pads so the decoder can
/// require them.
const GROUP_DECODE_LIMIT: usize = 24;

/// A cursor over the compressed bytes that refuses to read past the end.
struct Reader<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn remaining(&self) -> usize {
        self.data.len() - self.at
    }

    fn byte(&mut self) -> Result<u8> {
        let b = *self.data.get(self.at).ok_or(MeshoptError::Truncated)?;
        self.at += 1;
        Ok(b)
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.data.len()).ok_or(MeshoptError::Truncated)?;
        let out = &self.data[self.at..end];
        self.at = end;
        Ok(out)
    }

    /// A little-endian base-128 integer of up to five bytes.
    fn vbyte(&mut self) -> Result<u32> {
        let lead = self.byte()?;
        if lead < 128 {
            return Ok(u32::from(lead));
        }
        let mut result = u32::from(lead & 127);
        let mut shift = 7;
        for _ in 0..4 {
            let group = self.byte()?;
            result |= u32::from(group & 127).wrapping_shl(shift);
            shift += 7;
            if group < 128 {
                break;
            }
        }
        Ok(result)
    }
}

fn unzigzag8(v: u8) -> u8 {
    (0u8.wrapping_sub(v & 1)) ^ (v >> 1)
}

fn unzigzag16(v: u16) -> u16 {
    (0u16.wrapping_sub(v & 1)) ^ (v >> 1)
}

/// Vertices per block for a vertex size: as many as fit 8 KiB, a multiple of 16, at most 256.
fn block_vertices(vertex_size: usize) -> usize {
    ((BLOCK_BYTES / vertex_size) & !(GROUP - 1)).min(BLOCK_MAX_VERTICES)
}

/// Decode one group of 16 bytes stored with `bits` bits each (0, 1, 2, 4 or 8); values equal to
/// the largest code are escapes whose byte follows the packed codes.
fn decode_group(r: &mut Reader<'_>, out: &mut [u8], bits: u32) -> Result<()> {
    match bits {
        0 => out.fill(0),
        8 => out.copy_from_slice(r.take(GROUP)?),
        1 | 2 | 4 => {
            let packed = r.take(GROUP * bits as usize / 8)?;
            let escape = (1u8 << bits) - 1;
            let per_byte = 8 / bits as usize;
            for (i, value) in out.iter_mut().enumerate() {
                let byte = packed[i / per_byte];
                let slot = i % per_byte;
                // Codes are packed from the most significant bits down, except 1-bit codes,
                // which are packed from the least significant bit up.
                let code =
                    if bits == 1 { (byte >> slot) & 1 } else { (byte >> (8 - bits as usize * (slot + 1))) & escape };
                *value = if code == escape { r.byte()? } else { code };
            }
        }
        _ => return Err(MeshoptError::Malformed("bit width")),
    }
    Ok(())
}

/// Decode `out.len()` bytes (a multiple of 16) of one byte stream: a 2-bit width selector per
/// group of 16, then the groups. `widths` maps the selector to a bit width.
fn decode_bytes(r: &mut Reader<'_>, out: &mut [u8], widths: [u32; 4]) -> Result<()> {
    let groups = out.len() / GROUP;
    let header = r.take(groups.div_ceil(4))?;
    for (g, chunk) in out.chunks_exact_mut(GROUP).enumerate() {
        if r.remaining() < GROUP_DECODE_LIMIT {
            return Err(MeshoptError::Truncated);
        }
        let selector = (header[g / 4] >> ((g % 4) * 2)) & 3;
        decode_group(r, chunk, widths[selector as usize])?;
    }
    Ok(())
}

/// Decode a vertex (attribute) stream of `count` elements of `stride` bytes into `out`.
///
/// # Errors
/// A [`MeshoptError`] for a stride the codec cannot carry, a wrong header, truncated data or
/// trailing bytes.
pub fn decode_vertex_buffer(out: &mut [u8], count: usize, stride: usize, data: &[u8]) -> Result<()> {
    if stride == 0 || stride > 256 || !stride.is_multiple_of(4) {
        return Err(MeshoptError::BadRequest(format!("vertex stride {stride} is not a multiple of 4 up to 256")));
    }
    if Some(out.len()) != count.checked_mul(stride) {
        return Err(MeshoptError::BadRequest("output size is not count × stride".to_owned()));
    }
    let mut r = Reader { data, at: 0 };
    let header = r.byte()?;
    if header & 0xf0 != VERTEX_HEADER || header & 0x0f > 1 {
        return Err(MeshoptError::BadHeader(header));
    }
    let version = header & 0x0f;
    // The tail holds the first vertex's baseline (and, in version 1, a channel mode per
    // 4 bytes), padded to a minimum size.
    let tail_size = stride + if version == 0 { 0 } else { stride / 4 };
    let tail_padded = tail_size.max(if version == 0 { 32 } else { 24 });
    if data.len() < 1 + tail_padded {
        return Err(MeshoptError::Truncated);
    }
    let tail = &data[data.len() - tail_size..];
    let mut last = [0u8; 256];
    last[..stride].copy_from_slice(&tail[..stride]);
    let channels = &tail[stride..];
    // The blocks are followed by the padded tail (the group read limit counts it, as the
    // encoder's padding guarantees).
    let mut r = Reader { data, at: 1 };

    let block = block_vertices(stride);
    let mut bytes = vec![0u8; BLOCK_MAX_VERTICES * 4];
    let mut start = 0;
    while start < count {
        let n = block.min(count - start);
        let aligned = n.next_multiple_of(GROUP);
        let control = if version == 0 { &[][..] } else { r.take(stride / 4)? };
        let target = &mut out[start * stride..(start + n) * stride];
        for k in (0..stride).step_by(4) {
            let ctrl_byte = control.get(k / 4).copied().unwrap_or(0);
            for j in 0..4 {
                let stream = &mut bytes[j * n..j * n + n];
                match (version, (ctrl_byte >> (j * 2)) & 3) {
                    (1, 3) => stream.copy_from_slice(r.take(n)?),
                    (1, 2) => stream.fill(0),
                    (v, ctrl) => {
                        let widths = match (v, ctrl) {
                            (0, _) => [0, 2, 4, 8],
                            (_, 0) => [0, 1, 2, 4],
                            _ => [1, 2, 4, 8],
                        };
                        let mut padded = [0u8; BLOCK_MAX_VERTICES];
                        decode_bytes(&mut r, &mut padded[..aligned], widths)?;
                        stream.copy_from_slice(&padded[..n]);
                    }
                }
            }
            let channel = if version == 0 { 0 } else { channels.get(k / 4).copied().unwrap_or(0) };
            let baseline = &mut last[k..k + 4];
            match channel & 3 {
                0 => {
                    for (j, base) in baseline.iter_mut().enumerate() {
                        let mut p = *base;
                        for i in 0..n {
                            p = unzigzag8(bytes[j * n + i]).wrapping_add(p);
                            target[i * stride + k + j] = p;
                        }
                        *base = p;
                    }
                }
                1 => {
                    for half in 0..2 {
                        let lo = half * 2;
                        let mut p = u16::from_le_bytes([baseline[lo], baseline[lo + 1]]);
                        for i in 0..n {
                            let v = u16::from(bytes[lo * n + i]) | u16::from(bytes[(lo + 1) * n + i]) << 8;
                            p = unzigzag16(v).wrapping_add(p);
                            target[i * stride + k + lo..i * stride + k + lo + 2].copy_from_slice(&p.to_le_bytes());
                        }
                        baseline[lo..lo + 2].copy_from_slice(&p.to_le_bytes());
                    }
                }
                2 => {
                    let rotation = (32 - u32::from(channel >> 4)) & 31;
                    let mut p = u32::from_le_bytes([baseline[0], baseline[1], baseline[2], baseline[3]]);
                    for i in 0..n {
                        let v = u32::from_le_bytes([bytes[i], bytes[n + i], bytes[2 * n + i], bytes[3 * n + i]]);
                        p ^= v.rotate_left(rotation);
                        target[i * stride + k..i * stride + k + 4].copy_from_slice(&p.to_le_bytes());
                    }
                    baseline.copy_from_slice(&p.to_le_bytes());
                }
                _ => return Err(MeshoptError::Malformed("unknown channel mode")),
            }
        }
        start += n;
    }
    if r.remaining() != tail_padded {
        return Err(MeshoptError::Malformed("the vertex blocks do not end where the tail begins"));
    }
    Ok(())
}

/// Write index `i` of `out` as a `size`-byte little-endian integer.
fn put_index(out: &mut [u8], i: usize, size: usize, value: u32) {
    if size == 2 {
        out[i * 2..i * 2 + 2].copy_from_slice(&(value as u16).to_le_bytes());
    } else {
        out[i * 4..i * 4 + 4].copy_from_slice(&value.to_le_bytes());
    }
}

/// Decode a triangle index stream of `count` indices (a multiple of 3) of `size` (2 or 4)
/// bytes into `out`.
///
/// # Errors
/// A [`MeshoptError`] for a wrong header, truncated data or trailing bytes.
pub fn decode_index_buffer(out: &mut [u8], count: usize, size: usize, data: &[u8]) -> Result<()> {
    if !count.is_multiple_of(3) || !(size == 2 || size == 4) || Some(out.len()) != count.checked_mul(size) {
        return Err(MeshoptError::BadRequest(format!("{count} triangle indices of {size} bytes")));
    }
    // Header, one code byte per triangle, and a 16-byte table of auxiliary codes at the end.
    if data.len() < 1 + count / 3 + 16 {
        return Err(MeshoptError::Truncated);
    }
    let header = data[0];
    if header & 0xf0 != INDEX_HEADER || header & 0x0f > 1 {
        return Err(MeshoptError::BadHeader(header));
    }
    let version = header & 0x0f;
    let triangles = count / 3;
    let codes = &data[1..1 + triangles];
    let table_start = data.len() - 16;
    let table = &data[table_start..];
    let mut r = Reader { data: &data[..table_start], at: 1 + triangles };

    let mut edges = [[u32::MAX; 2]; 16];
    let mut edge_at = 0usize;
    let mut vertices = [u32::MAX; 16];
    let mut vertex_at = 0usize;
    let mut next = 0u32;
    let mut last = 0u32;
    let fec_max = if version >= 1 { 13 } else { 15 };
    let push_edge = |edges: &mut [[u32; 2]; 16], at: &mut usize, a: u32, b: u32| {
        edges[*at] = [a, b];
        *at = (*at + 1) & 15;
    };
    let push_vertex = |vertices: &mut [u32; 16], at: &mut usize, v: u32, advance: bool| {
        vertices[*at] = v;
        *at = (*at + usize::from(advance)) & 15;
    };
    let decode_index = |r: &mut Reader<'_>, last: &mut u32| -> Result<u32> {
        let v = r.vbyte()?;
        let d = (v >> 1) ^ 0u32.wrapping_sub(v & 1);
        *last = last.wrapping_add(d);
        Ok(*last)
    };

    for (t, &code) in codes.iter().enumerate() {
        let (a, b, c);
        if code < 0xf0 {
            // One edge from the edge FIFO plus a third vertex.
            let fe = usize::from(code >> 4);
            let [ea, eb] = edges[(edge_at + 15 - fe) & 15];
            a = ea;
            b = eb;
            let fec = code & 15;
            if fec < fec_max {
                let cf = vertices[(vertex_at + 15 - usize::from(fec)) & 15];
                c = if fec == 0 { next } else { cf };
                next += u32::from(fec == 0);
                push_vertex(&mut vertices, &mut vertex_at, c, fec == 0);
            } else {
                c = if fec != 15 {
                    // 13 and 14 encode a delta of -1 and +1 from the last free index.
                    last = last.wrapping_add((i32::from(fec) * 2 - 27) as u32);
                    last
                } else {
                    decode_index(&mut r, &mut last)?
                };
                push_vertex(&mut vertices, &mut vertex_at, c, true);
            }
            push_edge(&mut edges, &mut edge_at, c, b);
            push_edge(&mut edges, &mut edge_at, a, c);
        } else if code < 0xfe {
            // A new triangle whose second and third vertices come from a table of codes.
            let aux = table[usize::from(code & 15)];
            let feb = usize::from(aux >> 4);
            let fec = usize::from(aux & 15);
            a = next;
            next += 1;
            let bf = vertices[(vertex_at + 16 - feb) & 15];
            b = if feb == 0 { next } else { bf };
            next += u32::from(feb == 0);
            let cf = vertices[(vertex_at + 16 - fec) & 15];
            c = if fec == 0 { next } else { cf };
            next += u32::from(fec == 0);
            push_vertex(&mut vertices, &mut vertex_at, a, true);
            push_vertex(&mut vertices, &mut vertex_at, b, feb == 0);
            push_vertex(&mut vertices, &mut vertex_at, c, fec == 0);
            push_edge(&mut edges, &mut edge_at, b, a);
            push_edge(&mut edges, &mut edge_at, c, b);
            push_edge(&mut edges, &mut edge_at, a, c);
        } else {
            // A new triangle with its codes in a full byte; 15 means an explicit index.
            let aux = r.byte()?;
            let fea = if code == 0xfe { 0 } else { 15 };
            let feb = usize::from(aux >> 4);
            let fec = usize::from(aux & 15);
            if aux == 0 {
                next = 0;
            }
            let take_next = |next: &mut u32| {
                let v = *next;
                *next += 1;
                v
            };
            let mut va = if fea == 0 { take_next(&mut next) } else { 0 };
            let mut vb = if feb == 0 { take_next(&mut next) } else { vertices[(vertex_at + 16 - feb) & 15] };
            let mut vc = if fec == 0 { take_next(&mut next) } else { vertices[(vertex_at + 16 - fec) & 15] };
            if fea == 15 {
                va = decode_index(&mut r, &mut last)?;
            }
            if feb == 15 {
                vb = decode_index(&mut r, &mut last)?;
            }
            if fec == 15 {
                vc = decode_index(&mut r, &mut last)?;
            }
            (a, b, c) = (va, vb, vc);
            push_vertex(&mut vertices, &mut vertex_at, a, true);
            push_vertex(&mut vertices, &mut vertex_at, b, feb == 0 || feb == 15);
            push_vertex(&mut vertices, &mut vertex_at, c, fec == 0 || fec == 15);
            push_edge(&mut edges, &mut edge_at, b, a);
            push_edge(&mut edges, &mut edge_at, c, b);
            push_edge(&mut edges, &mut edge_at, a, c);
        }
        put_index(out, t * 3, size, a);
        put_index(out, t * 3 + 1, size, b);
        put_index(out, t * 3 + 2, size, c);
    }
    if r.remaining() != 0 {
        return Err(MeshoptError::Malformed("bytes left over after the last triangle"));
    }
    Ok(())
}

/// Decode an index sequence of `count` indices of `size` (2 or 4) bytes into `out`.
///
/// # Errors
/// A [`MeshoptError`] for a wrong header, truncated data or trailing bytes.
pub fn decode_index_sequence(out: &mut [u8], count: usize, size: usize, data: &[u8]) -> Result<()> {
    if !(size == 2 || size == 4) || Some(out.len()) != count.checked_mul(size) {
        return Err(MeshoptError::BadRequest(format!("{count} indices of {size} bytes")));
    }
    // Header, at least a byte per index, and a 4-byte tail.
    if data.len() < 1 + count + 4 {
        return Err(MeshoptError::Truncated);
    }
    let header = data[0];
    if header & 0xf0 != SEQUENCE_HEADER || header & 0x0f > 1 {
        return Err(MeshoptError::BadHeader(header));
    }
    let mut r = Reader { data: &data[..data.len() - 4], at: 1 };
    let mut last = [0u32; 2];
    for i in 0..count {
        let v = r.vbyte()?;
        // Two baselines: the lowest bit picks one, the rest is a zig-zag delta from it.
        let current = (v & 1) as usize;
        let v = v >> 1;
        let d = (v >> 1) ^ 0u32.wrapping_sub(v & 1);
        last[current] = last[current].wrapping_add(d);
        put_index(out, i, size, last[current]);
    }
    if r.remaining() != 0 {
        return Err(MeshoptError::Malformed("bytes left over after the last index"));
    }
    Ok(())
}

/// Round to the nearest integer, halves away from zero (the filters' rounding).
fn round_away(x: f32) -> i32 {
    (x + if x >= 0.0 { 0.5 } else { -0.5 }) as i32
}

/// The bytes per component of a filter whose elements are four 1- or 2-byte components: the
/// stride must be 4 or 8 (the importer checks this; the decoder does not take it on trust).
fn filter_component_bytes(filter: &str, stride: usize) -> Result<usize> {
    match stride {
        4 | 8 => Ok(stride / 4),
        _ => Err(MeshoptError::BadRequest(format!("the {filter} filter needs a byte stride of 4 or 8, not {stride}"))),
    }
}

/// Octahedral filter: each element holds signed normalized x, y (octahedral coordinates) and a
/// z that stores 1.0, in 1- or 2-byte components; w is kept. Writes the unit vector back in the
/// same integer format.
pub fn filter_octahedral(data: &mut [u8], stride: usize) -> Result<()> {
    let component = filter_component_bytes("octahedral", stride)?;
    let max = ((1i32 << (component * 8 - 1)) - 1) as f32;
    for element in data.chunks_exact_mut(stride) {
        let read = |e: &[u8], i: usize| -> f32 {
            if component == 1 { f32::from(e[i] as i8) } else { f32::from(i16::from_le_bytes([e[i * 2], e[i * 2 + 1]])) }
        };
        let mut x = read(element, 0);
        let mut y = read(element, 1);
        let z = read(element, 2) - x.abs() - y.abs();
        let t = z.min(0.0);
        x += if x >= 0.0 { t } else { -t };
        y += if y >= 0.0 { t } else { -t };
        let length = (x * x + y * y + z * z).sqrt();
        let s = if length > 0.0 { max / length } else { 0.0 };
        for (i, v) in [x, y, z].into_iter().enumerate() {
            let q = round_away(v * s);
            if component == 1 {
                element[i] = q as i8 as u8;
            } else {
                element[i * 2..i * 2 + 2].copy_from_slice(&(q as i16).to_le_bytes());
            }
        }
    }
    Ok(())
}

/// Quaternion filter: three signed 16-bit components scaled by 1/√2 and the index of the
/// largest (dropped) one in the low two bits of the fourth, whose other bits give the scale.
/// Writes the unit quaternion back as four normalized shorts.
pub fn filter_quaternion(data: &mut [u8]) {
    let scale = 32767.0 / std::f32::consts::SQRT_2;
    for element in data.chunks_exact_mut(8) {
        let read = |i: usize| i16::from_le_bytes([element[i * 2], element[i * 2 + 1]]);
        let w_word = read(3);
        let sf = i32::from(w_word | 3) as f32;
        let (x, y, z) = (f32::from(read(0)), f32::from(read(1)), f32::from(read(2)));
        let ww = sf * sf * 2.0 - x * x - y * y - z * z;
        let w = ww.max(0.0).sqrt();
        let ss = scale / sf;
        let values = [round_away(x * ss), round_away(y * ss), round_away(z * ss), (w * ss + 0.5) as i32];
        let largest = (w_word & 3) as usize;
        let mut out = [0i16; 4];
        out[(largest + 1) & 3] = values[0] as i16;
        out[(largest + 2) & 3] = values[1] as i16;
        out[(largest + 3) & 3] = values[2] as i16;
        out[largest] = values[3] as i16;
        for (i, v) in out.iter().enumerate() {
            element[i * 2..i * 2 + 2].copy_from_slice(&v.to_le_bytes());
        }
    }
}

/// Exponential filter: each 32-bit word is a signed 24-bit mantissa and a signed 8-bit
/// exponent; writes `mantissa × 2^exponent` as an `f32`.
pub fn filter_exponential(data: &mut [u8]) {
    for word in data.chunks_exact_mut(4) {
        let v = u32::from_le_bytes([word[0], word[1], word[2], word[3]]);
        let mantissa = ((v << 8) as i32) >> 8;
        let exponent = (v as i32) >> 24;
        // 2^exponent built from its bits, as the reference does (exponents of -127 and below
        // give zero or garbage that the importer's finiteness checks catch).
        let power = f32::from_bits(((exponent + 127) as u32).wrapping_shl(23));
        word.copy_from_slice(&(power * mantissa as f32).to_bits().to_le_bytes());
    }
}

/// Colour filter (`KHR_meshopt_compression`): `YCoCg` with alpha in 1- or 2-byte components;
/// writes RGBA back in the same unsigned normalized format.
pub fn filter_color(data: &mut [u8], stride: usize) -> Result<()> {
    let component = filter_component_bytes("colour", stride)?;
    let max = ((1u32 << (component * 8)) - 1) as f32;
    for element in data.chunks_exact_mut(stride) {
        let read = |i: usize| -> i32 {
            if component == 1 {
                i32::from(element[i])
            } else {
                i32::from(u16::from_le_bytes([element[i * 2], element[i * 2 + 1]]))
            }
        };
        let signed =
            |v: i32| -> i32 { if component == 1 { i32::from(v as u8 as i8) } else { i32::from(v as u16 as i16) } };
        let alpha_word = read(3);
        let mut alpha_scale = alpha_word;
        alpha_scale |= alpha_scale >> 1;
        alpha_scale |= alpha_scale >> 2;
        alpha_scale |= alpha_scale >> 4;
        alpha_scale |= alpha_scale >> 8;
        let (y, co, cg) = (read(0), signed(read(1)), signed(read(2)));
        let rgb = [y + co - cg, y + cg, y - co - cg];
        let a = ((alpha_word << 1) & alpha_scale) | (alpha_word & 1);
        let ss = if alpha_scale > 0 { max / alpha_scale as f32 } else { 0.0 };
        for (i, v) in rgb.into_iter().chain([a]).enumerate() {
            let q = (v as f32 * ss + 0.5) as i32;
            if component == 1 {
                element[i] = q as u8;
            } else {
                element[i * 2..i * 2 + 2].copy_from_slice(&(q as u16).to_le_bytes());
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unzigzag_maps_small_codes_to_small_deltas() {
        assert_eq!([0, 1, 2, 3, 4].map(unzigzag8), [0, 255, 1, 254, 2]);
        assert_eq!(unzigzag16(3), u16::MAX - 1);
    }

    #[test]
    fn exponential_filter_is_mantissa_times_power_of_two() {
        // mantissa 3, exponent -1 → 1.5; mantissa -5, exponent 2 → -20.
        let mut data = Vec::new();
        data.extend_from_slice(&((0xffu32 << 24) | 3).to_le_bytes());
        data.extend_from_slice(&((2u32 << 24) | (0x00ff_ffff & (-5i32 as u32))).to_le_bytes());
        filter_exponential(&mut data);
        let floats: Vec<f32> = data.chunks_exact(4).map(|w| f32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect();
        assert_eq!(floats, [1.5, -20.0]);
    }

    #[test]
    fn quaternion_filter_restores_the_dropped_component() {
        // x = y = z = 0 with w dropped (index 3) and the 16-bit scale: w reconstructs to ~1.
        let sf: i16 = 0x7ffc | 3;
        let mut data = [0u8; 8];
        data[6..8].copy_from_slice(&sf.to_le_bytes());
        filter_quaternion(&mut data);
        let w = i16::from_le_bytes([data[6], data[7]]);
        assert_eq!(w, 32767, "{data:?}");
        assert_eq!(&data[..6], &[0; 6]);
    }

    #[test]
    fn octahedral_filter_decodes_the_pole() {
        // x = y = 0, z = 127 (1.0 in 8 bits): +Z.
        let mut data = [0u8, 0, 127, 0];
        filter_octahedral(&mut data, 4).unwrap();
        assert_eq!(data, [0, 0, 127, 0]);
    }

    /// Found by the `decoders` fuzz target: a stride the filters cannot have (the importer
    /// refuses it; the decoder's own callers may not) is an error, not an overflow panic.
    #[test]
    fn filters_refuse_strides_they_cannot_have() {
        for stride in [0, 1, 2, 3, 5, 12, 16, 256] {
            let mut data = vec![0x7f; 2 * stride.max(1)];
            let before = data.clone();
            assert!(matches!(filter_octahedral(&mut data, stride), Err(MeshoptError::BadRequest(_))), "{stride}");
            assert!(matches!(filter_color(&mut data, stride), Err(MeshoptError::BadRequest(_))), "{stride}");
            assert_eq!(data, before, "stride {stride} touched the data");
        }
    }

    #[test]
    fn malformed_streams_are_errors_not_panics() {
        let mut out = vec![0u8; 64];
        assert_eq!(decode_vertex_buffer(&mut out, 16, 4, &[]), Err(MeshoptError::Truncated));
        assert!(matches!(decode_vertex_buffer(&mut out, 16, 4, &[0x55; 40]), Err(MeshoptError::BadHeader(0x55))));
        assert!(decode_vertex_buffer(&mut out, 16, 3, &[0xa0; 40]).is_err());
        let mut out = vec![0u8; 12];
        assert_eq!(decode_index_buffer(&mut out, 6, 2, &[0xe1; 18]), Err(MeshoptError::Truncated));
        assert!(matches!(decode_index_buffer(&mut out, 6, 2, &[0x51; 19]), Err(MeshoptError::BadHeader(0x51))));
        assert!(decode_index_sequence(&mut out, 6, 2, &[0xd1; 5]).is_err());
        // Every prefix of a stream of garbage after a valid header.
        for len in 0..80 {
            let mut data = vec![0xa0u8];
            data.extend((0..len).map(|i| (i * 37 % 251) as u8));
            let mut out = vec![0u8; 40 * 8];
            let _ = decode_vertex_buffer(&mut out, 40, 8, &data);
            let mut data = vec![0xe1u8];
            data.extend((0..len).map(|i| (i * 91 % 253) as u8));
            let mut out = vec![0u8; 30 * 4];
            let _ = decode_index_buffer(&mut out, 30, 4, &data);
        }
    }
}

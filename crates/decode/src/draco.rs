//! `KHR_draco_mesh_compression` over the pure-Rust `draco-oxide-decoder` (bitstream 2.2, the
//! version Google's encoder and gltf-transform write; sequential and edgebreaker connectivity).
//!
//! Before decoding, the stream's header is read here and the face and vertex counts it declares
//! are checked against the primitive's accessors (which the importer already checked against
//! its limits), so a hostile stream cannot make the decoder allocate more than the file's own
//! accessors allow. The decoder runs under `catch_unwind`: a panic inside it becomes an error.

use anim::import::{DecodedDraco, DracoAttribute, DracoComponent, DracoPrimitive};
use draco_oxide_core::attribute::ComponentDataType;

/// Counts a mesh stream declares in its connectivity header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeclaredCounts {
    /// Triangles.
    pub faces: u64,
    /// Points (sequential) or encoded vertices (edgebreaker: attribute seams add points).
    pub vertices: u64,
}

/// Read the header and the connectivity counts of a Draco mesh stream without decoding it.
/// `None` when the stream carries metadata before its connectivity (the counts are then checked
/// after decoding instead).
///
/// # Errors
/// A message when the header is not a Draco 2.2 triangle mesh or the counts are unreadable.
pub fn declared_counts(bytes: &[u8]) -> Result<Option<DeclaredCounts>, String> {
    let mut at = 0usize;
    let mut byte = || -> Result<u8, String> {
        let b = *bytes.get(at).ok_or("the Draco stream is truncated")?;
        at += 1;
        Ok(b)
    };
    let mut magic = [0u8; 5];
    for b in &mut magic {
        *b = byte()?;
    }
    if &magic != b"DRACO" {
        return Err("not a Draco stream (no DRACO magic)".to_owned());
    }
    let (major, minor, geometry, method) = (byte()?, byte()?, byte()?, byte()?);
    if (major, minor) != (2, 2) {
        return Err(format!("Draco bitstream {major}.{minor} is not supported (only 2.2)"));
    }
    if geometry != 1 {
        return Err("the Draco stream is not a triangle mesh".to_owned());
    }
    let flags = u16::from_le_bytes([byte()?, byte()?]);
    if flags & 0x8000 != 0 {
        return Ok(None);
    }
    let mut varint = || -> Result<u64, String> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let b = byte()?;
            value |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err("a Draco count is longer than 64 bits".to_owned())
    };
    match method {
        0 => {
            let faces = varint()?;
            let vertices = varint()?;
            Ok(Some(DeclaredCounts { faces, vertices }))
        }
        1 => {
            // The edgebreaker traversal type byte, then the counts.
            let _traversal = varint()?; // one byte: 0 standard, 2 valence
            let vertices = varint()?;
            let faces = varint()?;
            Ok(Some(DeclaredCounts { faces, vertices }))
        }
        other => Err(format!("unknown Draco connectivity method {other}")),
    }
}

/// Fewest vertices (over all primitives) for which [`decode_all`] decodes in parallel. Below it
/// the primitives are decoded on the calling thread: handing small primitives to a thread pool
/// costs more than it saves on a busy machine (measured on a 2-core VM at load average 8:
/// `RobotExpressive`'s 19 Draco primitives, 5.6K vertices, imported 2.4–3.0× slower than its
/// original in parallel, 1.2–1.3× on one thread); above it decoding takes tens of
/// milliseconds and every free core shortens it.
pub const PARALLEL_MIN_VERTICES: usize = 1 << 16;

/// Decode every Draco primitive of a file, in parallel on rayon's pool when there are several
/// and together they hold at least `parallel_min_vertices` vertices; results in order.
pub fn decode_all(
    primitives: &[DracoPrimitive<'_>],
    parallel_min_vertices: usize,
) -> Vec<Result<DecodedDraco, String>> {
    use rayon::prelude::*;
    let vertices: usize = primitives.iter().map(|p| p.vertex_count).sum();
    if primitives.len() < 2 || vertices < parallel_min_vertices {
        return primitives.iter().map(decode).collect();
    }
    primitives.par_iter().map(decode).collect()
}

/// Decode one primitive: the attributes the importer asks for, in its accessors' types, and the
/// triangle indices.
///
/// # Errors
/// A message naming what is wrong: the header, counts that disagree with the accessors, a
/// missing attribute, or the decoder's own error.
pub fn decode(primitive: &DracoPrimitive<'_>) -> Result<DecodedDraco, String> {
    let vertex_count = primitive.vertex_count;
    if let Some(counts) = declared_counts(primitive.compressed)? {
        if let Some(indices) = primitive.index_count
            && counts.faces.checked_mul(3) != Some(indices as u64)
        {
            return Err(format!(
                "the Draco stream declares {} triangles but the indices accessor holds {indices} indices",
                counts.faces
            ));
        }
        if counts.vertices > vertex_count as u64 {
            return Err(format!(
                "the Draco stream declares {} vertices but the attribute accessors hold {vertex_count}",
                counts.vertices
            ));
        }
    }
    let bytes = primitive.compressed;
    let mesh = crate::quiet_catch_unwind(move || draco_oxide_decoder::decode_mesh(bytes))
        .map_err(|_| "the Draco decoder failed on malformed data".to_owned())?
        .map_err(|e| format!("Draco: {e}"))?;

    let mut indices = Vec::with_capacity(mesh.faces.len() * 3);
    for face in &mesh.faces {
        for &point in face {
            let point = usize::from(point);
            if point >= vertex_count {
                return Err(format!("a Draco face uses point {point} of {vertex_count}"));
            }
            indices.push(point as u32);
        }
    }
    if let Some(expected) = primitive.index_count
        && indices.len() != expected
    {
        return Err(format!("the Draco stream holds {} indices, the accessor {expected}", indices.len()));
    }
    let attributes = primitive
        .attributes
        .iter()
        .map(|want| {
            let attribute =
                mesh.attributes.iter().find(|a| a.get_id().as_usize() == want.unique_id as usize).ok_or_else(|| {
                    format!("{}: the Draco stream has no attribute {}", want.semantic, want.unique_id)
                })?;
            convert(attribute, want, vertex_count)
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(DecodedDraco { indices, attributes })
}

/// One attribute's values per point, converted to the accessor's component type.
fn convert(
    attribute: &draco_oxide_core::attribute::Attribute,
    want: &DracoAttribute,
    vertex_count: usize,
) -> Result<Vec<u8>, String> {
    if attribute.len() != vertex_count {
        return Err(format!(
            "{}: the Draco attribute has {} points, the accessor {vertex_count}",
            want.semantic,
            attribute.len()
        ));
    }
    if attribute.get_num_components() != want.components {
        return Err(format!(
            "{}: the Draco attribute has {} components, the accessor {}",
            want.semantic,
            attribute.get_num_components(),
            want.components
        ));
    }
    let source = attribute.get_component_type();
    let size = source.size();
    let values = attribute.get_data_as_bytes();
    let map = attribute.point_map_as_slice();
    let per_value = size * want.components;
    let mut out = Vec::with_capacity(vertex_count * want.components * want.component.size());
    let same_type = matches!(
        (source, want.component),
        (ComponentDataType::F32, DracoComponent::F32)
            | (ComponentDataType::U8, DracoComponent::U8)
            | (ComponentDataType::I8, DracoComponent::I8)
            | (ComponentDataType::U16, DracoComponent::U16)
            | (ComponentDataType::I16, DracoComponent::I16)
            | (ComponentDataType::U32, DracoComponent::U32)
    );
    if same_type {
        // Already in the accessor's type, one value per point: one copy.
        if map.is_none()
            && let Some(all) = values.get(..vertex_count * per_value)
        {
            out.extend_from_slice(all);
            return Ok(out);
        }
        // Else copy each point's value as it is, in fixed-size moves for the usual sizes.
        let copied = match per_value {
            1 => copy_points::<1>(values, map, vertex_count, &mut out),
            2 => copy_points::<2>(values, map, vertex_count, &mut out),
            3 => copy_points::<3>(values, map, vertex_count, &mut out),
            4 => copy_points::<4>(values, map, vertex_count, &mut out),
            6 => copy_points::<6>(values, map, vertex_count, &mut out),
            8 => copy_points::<8>(values, map, vertex_count, &mut out),
            12 => copy_points::<12>(values, map, vertex_count, &mut out),
            16 => copy_points::<16>(values, map, vertex_count, &mut out),
            _ => (0..vertex_count).all(|point| {
                let value = point_value(map, point).and_then(|v| values.get(v * per_value..(v + 1) * per_value));
                value.map(|value| out.extend_from_slice(value)).is_some()
            }),
        };
        if !copied {
            return Err(format!("{}: a Draco point refers past the attribute's values", want.semantic));
        }
        return Ok(out);
    }
    for point in 0..vertex_count {
        let value_index = map.map_or(Some(point), |m| m.get(point).map(|&v| usize::from(v)));
        let start = value_index.and_then(|v| v.checked_mul(per_value)).unwrap_or(usize::MAX);
        let Some(value) = values.get(start..start.saturating_add(per_value)) else {
            return Err(format!("{}: a Draco point refers past the attribute's values", want.semantic));
        };
        for component in value.chunks_exact(size) {
            let x = read_component(component, source)
                .ok_or_else(|| format!("{}: Draco component type {source:?} is not supported", want.semantic))?;
            // A float attribute feeding a normalized integer accessor is scaled to its range.
            let x = if source == ComponentDataType::F32 && want.normalized {
                x * normalized_max(want.component)
            } else {
                x
            };
            write_component(&mut out, x, want.component);
        }
    }
    Ok(out)
}

/// The value index of `point` (the identity without a map).
fn point_value(map: Option<&[draco_oxide_core::types::AttributeValueIdx]>, point: usize) -> Option<usize> {
    map.map_or(Some(point), |m| m.get(point).map(|&v| usize::from(v)))
}

/// Append each point's `N`-byte value; false when a point refers past the values.
fn copy_points<const N: usize>(
    values: &[u8],
    map: Option<&[draco_oxide_core::types::AttributeValueIdx]>,
    vertex_count: usize,
    out: &mut Vec<u8>,
) -> bool {
    let (chunks, _) = values.as_chunks::<N>();
    out.reserve(vertex_count * N);
    (0..vertex_count).all(|point| {
        point_value(map, point).and_then(|v| chunks.get(v)).map(|value| out.extend_from_slice(value)).is_some()
    })
}

fn normalized_max(to: DracoComponent) -> f64 {
    match to {
        DracoComponent::I8 => 127.0,
        DracoComponent::U8 => 255.0,
        DracoComponent::I16 => 32767.0,
        DracoComponent::U16 => 65535.0,
        DracoComponent::U32 | DracoComponent::F32 => 1.0,
    }
}

fn read_component(b: &[u8], ty: ComponentDataType) -> Option<f64> {
    Some(match ty {
        ComponentDataType::I8 => f64::from(b[0] as i8),
        ComponentDataType::U8 => f64::from(b[0]),
        ComponentDataType::I16 => f64::from(i16::from_le_bytes([b[0], b[1]])),
        ComponentDataType::U16 => f64::from(u16::from_le_bytes([b[0], b[1]])),
        ComponentDataType::I32 => f64::from(i32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        ComponentDataType::U32 => f64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        ComponentDataType::F32 => f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        _ => return None,
    })
}

/// Integers are written as they are (saturating to the type), floats as `f32`. Draco keeps
/// normalized integer attributes (colours, weights) as their integer codes, so they stay exact.
fn write_component(out: &mut Vec<u8>, x: f64, to: DracoComponent) {
    match to {
        DracoComponent::I8 => out.push(x.round().clamp(-128.0, 127.0) as i8 as u8),
        DracoComponent::U8 => out.push(x.round().clamp(0.0, 255.0) as u8),
        DracoComponent::I16 => out.extend_from_slice(&(x.round().clamp(-32768.0, 32767.0) as i16).to_le_bytes()),
        DracoComponent::U16 => out.extend_from_slice(&(x.round().clamp(0.0, 65535.0) as u16).to_le_bytes()),
        DracoComponent::U32 => out.extend_from_slice(&(x.round().clamp(0.0, f64::from(u32::MAX)) as u32).to_le_bytes()),
        DracoComponent::F32 => out.extend_from_slice(&(x as f32).to_le_bytes()),
    }
}

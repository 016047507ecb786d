//! `KHR_draco_mesh_compression` over the pure-Rust `draco-core` (a port of Google's decoder:
//! bitstreams 1.0–2.2 and point clouds' 2.3, sequential and edgebreaker connectivity — standard and valence — every
//! prediction scheme and attribute transform; its output is bit-identical to Google's
//! `draco3d`, which `crates/decode/tests/draco_reference.rs` checks on every shared model at every
//! gltf-transform setting).
//!
//! Three guards stand between a hostile stream and memory: the header's face and vertex counts
//! are read here and checked against the primitive's accessors (which the importer already
//! checked against its limits); the decoder itself gets those accessor counts as hard ceilings
//! on the points, faces and attribute bytes it may decode ([`draco_core::DecodeLimits`]), and
//! bounds every other reservation by the stream's length; and it runs under `catch_unwind`, so
//! a panic inside it becomes an error.

use anim::import::{DecodedDraco, DracoAttribute, DracoComponent, DracoPrimitive};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use draco_core::{DataType, DecodeLimits, DecoderBuffer, Mesh, MeshDecoder, PointAttribute, PointIndex};

/// Counts a mesh stream declares in its connectivity header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeclaredCounts {
    /// Triangles.
    pub faces: u64,
    /// Points (sequential) or encoded vertices (edgebreaker: attribute seams add points).
    pub vertices: u64,
}

/// Read the header and the connectivity counts of a Draco mesh stream without decoding it.
/// `None` when the stream carries metadata before its connectivity, is a point cloud (bitstreams
/// to 2.3) or an older bitstream than 2.2 (the decoder's limits check the counts then).
///
/// # Errors
/// A message when the header is not a Draco stream or the counts are unreadable.
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
    if geometry > 1 {
        return Err(format!("unknown Draco geometry type {geometry}"));
    }
    // Google's encoder writes meshes as 2.2 and point clouds as 2.3 (their bitstreams are
    // versioned apart).
    let newest_minor = if geometry == 0 { 3 } else { 2 };
    if !(matches!((major, minor), (1, 0..=3)) || (major == 2 && minor <= newest_minor)) {
        return Err(format!("Draco bitstream {major}.{minor} is not supported (1.0 to 2.2; point clouds to 2.3)"));
    }
    // Older bitstreams and point clouds lay their counts out differently: the decoder's own
    // limits (set from the accessors) check them.
    if (major, minor) != (2, 2) || geometry == 0 {
        return Ok(None);
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

/// Fewest vertices (over all primitives) for which [`start`] decodes on several threads. Below it
/// one background thread decodes the primitives in turn: handing small primitives to several
/// threads costs more than it saves on a busy machine (measured on a 2-core VM at load average 8:
/// `RobotExpressive`'s 19 Draco primitives, 5.6K vertices, imported 2.4–3.0× slower than its
/// original decoded in parallel, 1.2–1.3× on one thread); above it decoding takes tens of
/// milliseconds and every free core shortens it.
pub const PARALLEL_MIN_VERTICES: usize = 1 << 16;

/// Decode every Draco primitive of a file and wait for them ([`start`], then [`Pending::wait`]);
/// results in order.
pub fn decode_all(
    primitives: &[DracoPrimitive<'_>],
    parallel_min_vertices: usize,
) -> Vec<Result<DecodedDraco, String>> {
    start(primitives, parallel_min_vertices).wait()
}

/// Decode one primitive: the attributes the importer asks for, in its accessors' types, and the
/// triangle indices.
///
/// # Errors
/// A message naming what is wrong: the header, counts that disagree with the accessors, a
/// missing attribute, the decoder's own error, or a stream still decoding past its budget.
pub fn decode(primitive: &DracoPrimitive<'_>) -> Result<DecodedDraco, String> {
    start(std::slice::from_ref(primitive), usize::MAX)
        .wait()
        .into_iter()
        .next()
        .unwrap_or_else(|| Err("the Draco decoder returned nothing".to_owned()))
}

/// Start decoding every Draco primitive of a file on background threads and return at once; the
/// caller goes on with its work and collects the results with [`Pending::wait`].
///
/// Each stream's header is checked against its accessors here, before anything is decoded. The
/// streams are copied (a thread that outlives the import must own its bytes) and decoded in file
/// order by one thread, or by as many as the machine has cores when there are several primitives
/// and together they hold at least `parallel_min_vertices` vertices. Each thread decodes under
/// `catch_unwind` and converts the result to the accessors' types; each primitive's wall time
/// counts from when its decoding starts ([`Pending::wait`] gives up past its budget).
pub fn start(primitives: &[DracoPrimitive<'_>], parallel_min_vertices: usize) -> Pending {
    let mut budgets = Vec::with_capacity(primitives.len());
    let mut jobs = VecDeque::new();
    for (index, primitive) in primitives.iter().enumerate() {
        match check_header(primitive) {
            Ok(()) => {
                budgets.push(Ok(decode_budget(primitive)));
                jobs.push_back(Job {
                    index,
                    compressed: primitive.compressed.to_vec(),
                    attributes: primitive.attributes.clone(),
                    vertex_count: primitive.vertex_count,
                    index_count: primitive.index_count,
                    limits: limits(primitive),
                });
            }
            Err(reason) => budgets.push(Err(reason)),
        }
    }
    let vertices: usize = primitives.iter().map(|p| p.vertex_count).sum();
    let threads = if jobs.len() < 2 || vertices < parallel_min_vertices {
        jobs.len().min(1)
    } else {
        std::thread::available_parallelism().map_or(1, std::num::NonZero::get).min(jobs.len())
    };
    let jobs = Arc::new(Mutex::new(jobs));
    let cancel = Arc::new(AtomicBool::new(false));
    let (send, events) = mpsc::channel();
    let mut spawn_error = None;
    for _ in 0..threads {
        let (jobs, cancel, send) = (Arc::clone(&jobs), Arc::clone(&cancel), send.clone());
        let spawned = std::thread::Builder::new()
            .name("draco decode".to_owned())
            .spawn(move || decode_jobs(&jobs, &cancel, &send));
        if let Err(e) = spawned {
            spawn_error = Some(format!("the Draco decoder could not start: {e}"));
        }
    }
    Pending { budgets, events, cancel, spawn_error }
}

/// Draco primitives being decoded on background threads ([`start`]). Dropping it abandons them:
/// the threads start no further primitive.
#[derive(Debug)]
pub struct Pending {
    /// Per primitive: its wall-time budget, or the error its header gave before decoding.
    budgets: Vec<Result<Duration, String>>,
    events: Receiver<Event>,
    /// Set when the results are no longer wanted.
    cancel: Arc<AtomicBool>,
    /// Why a decoding thread could not be started, if one could not.
    spawn_error: Option<String>,
}

impl Pending {
    /// Wait for every primitive, in order, and return one result per primitive. A primitive
    /// still decoding past its budget is given up with an error (its thread is left to finish on
    /// its own: Rust cannot stop it, but the import, the command line and the viewer go on).
    /// After the first failure the rest are not waited for (the importer reports the first):
    /// their threads start no further primitive, and their results say so.
    pub fn wait(self) -> Vec<Result<DecodedDraco, String>> {
        let count = self.budgets.len();
        let mut started: Vec<Option<Instant>> = vec![None; count];
        let mut done: Vec<Option<Result<DecodedDraco, String>>> = (0..count).map(|_| None).collect();
        let mut results = Vec::with_capacity(count);
        for (index, budget) in self.budgets.iter().enumerate() {
            let result = match budget {
                Err(reason) => Err(reason.clone()),
                Ok(budget) => self.collect(index, *budget, &mut started, &mut done),
            };
            let failed = result.is_err();
            results.push(result);
            if failed {
                self.cancel.store(true, Ordering::Relaxed);
                results.resize_with(count, || Err("not decoded: an earlier Draco primitive failed".to_owned()));
                break;
            }
        }
        results
    }

    /// Primitive `index`'s result, reading the threads' reports until it is there or its budget
    /// has run out.
    fn collect(
        &self,
        index: usize,
        budget: Duration,
        started: &mut [Option<Instant>],
        done: &mut [Option<Result<DecodedDraco, String>>],
    ) -> Result<DecodedDraco, String> {
        let gave_up = || {
            format!(
                "the Draco stream was still decoding after {:.0} s (a malformed stream that makes the decoder loop); gave up",
                budget.as_secs_f64()
            )
        };
        loop {
            if let Some(result) = done[index].take() {
                return result;
            }
            // Not started yet: the threads are finishing earlier primitives, which were given
            // their own budgets.
            let left = match started[index] {
                None => budget,
                Some(at) => (at + budget).saturating_duration_since(Instant::now()),
            };
            match self.events.recv_timeout(left) {
                Ok(Event::Started(i, at)) => started[i] = Some(at),
                Ok(Event::Done(i, result)) => done[i] = Some(result),
                Err(RecvTimeoutError::Timeout) => return Err(gave_up()),
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(self
                        .spawn_error
                        .clone()
                        .unwrap_or_else(|| "the Draco decoder failed on malformed data".to_owned()));
                }
            }
        }
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        self.cancel.store(true, Ordering::Relaxed);
    }
}

/// One primitive to decode, owning what it needs.
struct Job {
    /// Its place in the file's list of Draco primitives.
    index: usize,
    compressed: Vec<u8>,
    attributes: Vec<DracoAttribute>,
    vertex_count: usize,
    index_count: Option<usize>,
    limits: DecodeLimits,
}

/// What a decoding thread reports.
#[derive(Debug)]
enum Event {
    /// Primitive `.0` began decoding at `.1` (its budget runs from there).
    Started(usize, Instant),
    /// Primitive `.0` is decoded, or failed.
    Done(usize, Result<DecodedDraco, String>),
}

/// A decoding thread: take the next primitive, in file order, until none is left or the results
/// are no longer wanted.
fn decode_jobs(jobs: &Mutex<VecDeque<Job>>, cancel: &AtomicBool, send: &Sender<Event>) {
    while !cancel.load(Ordering::Relaxed) {
        let Some(job) = jobs.lock().unwrap_or_else(PoisonError::into_inner).pop_front() else { return };
        let index = job.index;
        if send.send(Event::Started(index, Instant::now())).is_err() {
            return;
        }
        let result = crate::quiet_catch_unwind(move || decode_job(job))
            .unwrap_or_else(|_| Err("the Draco decoder failed on malformed data".to_owned()));
        // The importer may have given up waiting: nobody to tell then.
        if send.send(Event::Done(index, result)).is_err() {
            return;
        }
    }
}

/// The stream's header against the primitive's accessors (which the importer checked against
/// its limits), before anything is decoded.
fn check_header(primitive: &DracoPrimitive<'_>) -> Result<(), String> {
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
    Ok(())
}

/// Bytes one decoded point may hold over all of a stream's attributes, beyond those the glTF
/// asks for: Draco keeps every attribute as up to 4 components of up to 8 bytes.
const MAX_BYTES_PER_POINT_PER_ATTRIBUTE: u64 = 32;

/// Attributes a stream may carry beyond the ones the glTF primitive names (an exporter's
/// generic attributes): they count against the decoded-bytes ceiling.
const SPARE_ATTRIBUTES: u64 = 4;

/// The ceilings the decoder works under for one primitive: the accessors' counts.
fn limits(primitive: &DracoPrimitive<'_>) -> DecodeLimits {
    let points = primitive.vertex_count as u64;
    let faces = primitive.index_count.map_or(points, |indices| indices as u64 / 3);
    let attributes = primitive.attributes.len() as u64 + SPARE_ATTRIBUTES;
    DecodeLimits::default()
        .with_max_points(points)
        .with_max_faces(faces)
        .with_max_decoded_bytes(points.saturating_mul(attributes).saturating_mul(MAX_BYTES_PER_POINT_PER_ATTRIBUTE))
}

/// Wall time a stream may keep the decoder busy: a floor for small meshes plus a generous
/// allowance per point and face the accessors declare (a real mesh decodes in well under a
/// microsecond per point; some malformed streams make the decoder loop for minutes).
fn decode_budget(primitive: &DracoPrimitive<'_>) -> Duration {
    /// Seconds any stream may take.
    const FLOOR_SECS: f64 = 5.0;
    /// Seconds per declared point or face beyond the floor.
    const SECS_PER_ELEMENT: f64 = 20e-6;
    let elements = primitive.vertex_count as f64 + primitive.index_count.map_or(0.0, |i| i as f64 / 3.0);
    Duration::from_secs_f64(FLOOR_SECS + SECS_PER_ELEMENT * elements)
}

/// Decode one primitive (on a decoding thread, under `catch_unwind`): the attributes the
/// importer asks for, in its accessors' types, and the triangle indices.
fn decode_job(job: Job) -> Result<DecodedDraco, String> {
    let Job { compressed, attributes, vertex_count, index_count, limits, .. } = job;
    let mut mesh = Mesh::new();
    let mut buffer = DecoderBuffer::new(&compressed).with_limits(limits);
    MeshDecoder::new().decode(&mut buffer, &mut mesh).map_err(|e| format!("Draco: {e}"))?;
    drop(compressed);

    if mesh.num_points() != vertex_count {
        return Err(format!(
            "the Draco stream decodes {} points, the attribute accessors hold {vertex_count}",
            mesh.num_points()
        ));
    }
    let mut indices = Vec::with_capacity(mesh.num_faces() * 3);
    for face in mesh.faces() {
        for point in face {
            let point = point.0;
            if point as usize >= vertex_count {
                return Err(format!("a Draco face uses point {point} of {vertex_count}"));
            }
            indices.push(point);
        }
    }
    match index_count {
        Some(expected) if indices.len() != expected => {
            return Err(format!("the Draco stream holds {} indices, the accessor {expected}", indices.len()));
        }
        None if !indices.is_empty() => {
            return Err(format!(
                "the Draco stream holds {} triangles but the primitive has no indices",
                indices.len() / 3
            ));
        }
        _ => {}
    }
    let attributes = attributes
        .iter()
        .map(|want| {
            let attribute = mesh
                .attribute_by_unique_id(want.unique_id)
                .ok_or_else(|| format!("{}: the Draco stream has no attribute {}", want.semantic, want.unique_id))?;
            convert(attribute, want, vertex_count)
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(DecodedDraco { indices, attributes })
}

/// The accessor component type that holds a Draco type's values as they are, if any.
fn same_type(source: DataType, to: DracoComponent) -> bool {
    matches!(
        (source, to),
        (DataType::Float32, DracoComponent::F32)
            | (DataType::Uint8, DracoComponent::U8)
            | (DataType::Int8, DracoComponent::I8)
            | (DataType::Uint16, DracoComponent::U16)
            | (DataType::Int16, DracoComponent::I16)
            | (DataType::Uint32, DracoComponent::U32)
    )
}

/// One attribute's values per point, converted to the accessor's component type.
fn convert(attribute: &PointAttribute, want: &DracoAttribute, vertex_count: usize) -> Result<Vec<u8>, String> {
    let components = usize::from(attribute.num_components());
    if components != want.components {
        return Err(format!(
            "{}: the Draco attribute has {components} components, the accessor {}",
            want.semantic, want.components
        ));
    }
    let source = attribute.data_type();
    let size = source.byte_length();
    let per_value = size * components;
    let stride = usize::try_from(attribute.byte_stride()).unwrap_or(0);
    if size == 0 || stride < per_value {
        return Err(format!("{}: Draco component type {source:?} is not supported", want.semantic));
    }
    let values = attribute.buffer().data();
    let value_of = |point: usize| -> Option<&[u8]> {
        let value = attribute.mapped_index(PointIndex(u32::try_from(point).ok()?)).0 as usize;
        if value >= attribute.size() {
            return None;
        }
        let start = value.checked_mul(stride)?;
        values.get(start..start.checked_add(per_value)?)
    };
    let past = || format!("{}: a Draco point refers past the attribute's values", want.semantic);
    let mut out = Vec::with_capacity(vertex_count * want.components * want.component.size());
    if same_type(source, want.component) {
        // Already in the accessor's type, tightly packed, one value per point: one copy.
        if attribute.is_mapping_identity()
            && stride == per_value
            && attribute.size() >= vertex_count
            && let Some(all) = values.get(..vertex_count * per_value)
        {
            out.extend_from_slice(all);
            return Ok(out);
        }
        for point in 0..vertex_count {
            out.extend_from_slice(value_of(point).ok_or_else(past)?);
        }
        return Ok(out);
    }
    for point in 0..vertex_count {
        let value = value_of(point).ok_or_else(past)?;
        for component in value.chunks_exact(size) {
            let x = read_component(component, source)
                .ok_or_else(|| format!("{}: Draco component type {source:?} is not supported", want.semantic))?;
            // A float attribute feeding a normalized integer accessor is scaled to its range.
            let x = if matches!(source, DataType::Float32 | DataType::Float64) && want.normalized {
                x * normalized_max(want.component)
            } else {
                x
            };
            write_component(&mut out, x, want.component);
        }
    }
    Ok(out)
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

/// One component as a float; `None` for types an accessor cannot hold.
fn read_component(b: &[u8], ty: DataType) -> Option<f64> {
    let four = |b: &[u8]| -> Option<[u8; 4]> { b.get(..4)?.try_into().ok() };
    let two = |b: &[u8]| -> Option<[u8; 2]> { b.get(..2)?.try_into().ok() };
    Some(match ty {
        DataType::Int8 => f64::from(*b.first()? as i8),
        DataType::Uint8 | DataType::Bool => f64::from(*b.first()?),
        DataType::Int16 => f64::from(i16::from_le_bytes(two(b)?)),
        DataType::Uint16 => f64::from(u16::from_le_bytes(two(b)?)),
        DataType::Int32 => f64::from(i32::from_le_bytes(four(b)?)),
        DataType::Uint32 => f64::from(u32::from_le_bytes(four(b)?)),
        DataType::Float32 => f64::from(f32::from_le_bytes(four(b)?)),
        DataType::Float64 => f64::from_le_bytes(b.get(..8)?.try_into().ok()?),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Ten points, `(i * 0.37) mod 1` for each of their 30 coordinates, encoded as Draco point
    /// clouds by Google's encoder (draco3d 1.5.7, `EncodePointCloudToDracoBuffer`, positions
    /// quantized to 11 bits), which writes bitstream 2.3: sequentially, and with the KD-tree
    /// (which reorders the points).
    const SEQUENTIAL: &str = "445241434f0203000000000a0000000101000903000002000101000c23993903690603f0af8500f06b4b8d1b478e1cb971e3c64123476edcb871e4c8411b376e1c3972e4c68d1b470e00000000ff070000000000008fc2f53c295c8f3da4707d3f0b";
    const KD_TREE: &str = "445241434f0203000100000a00000001010009030000050b0000000a000000ff025540800380f480010110010100010100010100010100010100010100010100010100010100010100010100010100010100010100010100010100010100010100010100010100010100010100010100010100010100010100010100010100010100010100280000006136e4388ae33898525500d238c7c76955398ee37efdbf2a141d80b450d5719a07c7aa0200001c1f04000000000000000400000000000010000000008fc2f53c295c8f3da4707d3f0b";

    fn hex(text: &str) -> Vec<u8> {
        (0..text.len()).step_by(2).filter_map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok()).collect()
    }

    fn encoded_points() -> Vec<[f32; 3]> {
        (0..10).map(|p| std::array::from_fn(|c| ((p * 3 + c) as f32 * 0.37) % 1.0)).collect()
    }

    /// Every decoded point is one of the encoded ones, each used once, within half the 11-bit
    /// quantization step of the points' range.
    fn assert_same_points(decoded: &[[f32; 3]], label: &str) {
        let mut expected = encoded_points();
        assert_eq!(decoded.len(), expected.len(), "{label}");
        let half_step = 0.5 * 1.0 / 2047.0 + 1e-6;
        for point in decoded {
            let near = expected.iter().position(|e| e.iter().zip(point).all(|(a, b)| (a - b).abs() <= half_step));
            let at = near.unwrap_or_else(|| panic!("{label}: {point:?} is none of the encoded points"));
            expected.swap_remove(at);
        }
    }

    #[test]
    fn point_clouds_of_bitstream_2_3_decode_to_their_points() {
        for (label, stream) in [("sequential", hex(SEQUENTIAL)), ("KD-tree", hex(KD_TREE))] {
            assert_eq!(&stream[5..8], &[2, 3, 0], "{label}: a 2.3 point cloud");
            assert_eq!(declared_counts(&stream), Ok(None), "{label}");
            let attribute = DracoAttribute {
                semantic: "POSITION".to_owned(),
                unique_id: 0,
                components: 3,
                component: DracoComponent::F32,
                normalized: false,
            };
            let primitive = DracoPrimitive {
                compressed: &stream,
                attributes: vec![attribute],
                vertex_count: 10,
                index_count: None,
            };
            let decoded = decode(&primitive).unwrap_or_else(|e| panic!("{label}: {e}"));
            assert!(decoded.indices.is_empty(), "{label}");
            let values: Vec<f32> =
                decoded.attributes[0].chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
            let points: Vec<[f32; 3]> = values.chunks_exact(3).map(|p| [p[0], p[1], p[2]]).collect();
            assert_same_points(&points, label);

            // The same stream as a `POINTS` primitive of a file, through the importer.
            let mut doc = devtools::gltf::Doc::new();
            let view = doc.add_view(&stream);
            doc.merge(serde_json::json!({
                "extensionsUsed": ["KHR_draco_mesh_compression"],
                "extensionsRequired": ["KHR_draco_mesh_compression"],
                "accessors": [{"componentType": 5126, "type": "VEC3", "count": 10, "min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 1.0]}],
                "meshes": [{"primitives": [{"mode": 0, "attributes": {"POSITION": 0},
                    "extensions": {"KHR_draco_mesh_compression": {"bufferView": view, "attributes": {"POSITION": 0}}}}]}],
                "nodes": [{"mesh": 0}],
                "scenes": [{"nodes": [0]}],
                "scene": 0
            }));
            let model = crate::load_slice(&doc.to_glb(), None, &anim::import::Limits::default())
                .unwrap_or_else(|e| panic!("{label}: {e}"));
            let primitive = &model.meshes()[0].primitives[0];
            assert_eq!(primitive.mode, anim::model::PrimitiveMode::Points, "{label}");
            let points: Vec<[f32; 3]> = primitive.positions.iter().map(|p| [p.x, p.y, p.z]).collect();
            assert_same_points(&points, label);
        }
    }

    /// The importer hands a Draco attribute's decoded floats to the mesh that reads it first and
    /// leaves the placed bytes to any later reader: two primitives sharing the accessor and the
    /// stream (the first takes the values, the second reads the bytes) get the same points.
    #[test]
    fn a_shared_draco_accessor_reads_the_same_from_values_and_bytes() {
        let stream = hex(SEQUENTIAL);
        let mut doc = devtools::gltf::Doc::new();
        let view = doc.add_view(&stream);
        let primitive = serde_json::json!({"mode": 0, "attributes": {"POSITION": 0},
            "extensions": {"KHR_draco_mesh_compression": {"bufferView": view, "attributes": {"POSITION": 0}}}});
        doc.merge(serde_json::json!({
            "extensionsUsed": ["KHR_draco_mesh_compression"],
            "extensionsRequired": ["KHR_draco_mesh_compression"],
            "accessors": [{"componentType": 5126, "type": "VEC3", "count": 10, "min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 1.0]}],
            "meshes": [{"primitives": [primitive.clone(), primitive]}],
            "nodes": [{"mesh": 0}],
            "scenes": [{"nodes": [0]}],
            "scene": 0
        }));
        let model = crate::load_slice(&doc.to_glb(), None, &anim::import::Limits::default()).unwrap();
        let [first, second] = &model.meshes()[0].primitives[..] else { panic!("two primitives") };
        assert_eq!(first.positions, second.positions);
        let points: Vec<[f32; 3]> = first.positions.iter().map(|p| [p.x, p.y, p.z]).collect();
        assert_same_points(&points, "shared accessor");
    }

    /// A point cloud holding more points than its accessor is refused by the decoder's ceiling,
    /// not decoded and then compared.
    #[test]
    fn a_point_cloud_larger_than_its_accessor_is_refused() {
        for stream in [hex(SEQUENTIAL), hex(KD_TREE)] {
            let attribute = DracoAttribute {
                semantic: "POSITION".to_owned(),
                unique_id: 0,
                components: 3,
                component: DracoComponent::F32,
                normalized: false,
            };
            let primitive =
                DracoPrimitive { compressed: &stream, attributes: vec![attribute], vertex_count: 3, index_count: None };
            let error = decode(&primitive).unwrap_err();
            assert!(error.contains("10") && error.contains("ceiling of 3"), "{error}");
        }
    }

    #[test]
    fn bitstream_2_3_is_a_point_cloud_version_only() {
        let mut mesh = b"DRACO\x02\x03\x01\x00\x00\x00".to_vec();
        mesh.extend_from_slice(&[1, 3]);
        let error = declared_counts(&mesh).unwrap_err();
        assert!(error.contains("Draco bitstream 2.3 is not supported"), "{error}");
        let mut newer_cloud = hex(SEQUENTIAL);
        newer_cloud[6] = 4;
        assert!(declared_counts(&newer_cloud).unwrap_err().contains("2.4"));
    }
}

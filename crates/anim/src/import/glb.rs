//! The binary glTF container: a 12-byte header, a JSON chunk, an optional BIN chunk.

use crate::error::ImportError;

const MAGIC: u32 = 0x4654_6C67; // "glTF"
const CHUNK_JSON: u32 = 0x4E4F_534A; // "JSON"
const CHUNK_BIN: u32 = 0x004E_4942; // "BIN\0"

/// True when `bytes` start like a GLB file.
pub(crate) fn is_glb(bytes: &[u8]) -> bool {
    bytes.len() >= 4 && read_u32(bytes, 0) == Some(MAGIC)
}

fn read_u32(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// Split a GLB file into its JSON and BIN chunks, checking every length against the file.
pub(crate) fn split(bytes: &[u8]) -> Result<(&[u8], Option<&[u8]>), ImportError> {
    let err = |m: String| ImportError::Glb(m);
    if bytes.len() < 12 {
        return Err(err(format!("file is {} bytes, shorter than the 12-byte header", bytes.len())));
    }
    let version = read_u32(bytes, 4).unwrap_or(0);
    if version != 2 {
        return Err(err(format!("container version {version}, only 2 is supported")));
    }
    let declared = read_u32(bytes, 8).unwrap_or(0) as usize;
    if declared > bytes.len() {
        return Err(err(format!("header declares {declared} bytes but the file has {}", bytes.len())));
    }
    let bytes = &bytes[..declared];
    let mut offset = 12;
    let mut json = None;
    let mut bin = None;
    let mut chunk_index = 0;
    while offset < bytes.len() {
        let (Some(length), Some(kind)) = (read_u32(bytes, offset), read_u32(bytes, offset + 4)) else {
            return Err(err(format!("chunk {chunk_index} header at byte {offset} is truncated")));
        };
        let start = offset + 8;
        let end = start.checked_add(length as usize).filter(|&e| e <= bytes.len()).ok_or_else(|| {
            err(format!(
                "chunk {chunk_index} at byte {offset} declares {length} bytes but only {} remain",
                bytes.len().saturating_sub(start)
            ))
        })?;
        let data = &bytes[start..end];
        match (chunk_index, kind) {
            (0, CHUNK_JSON) => json = Some(data),
            (0, _) => return Err(err(format!("first chunk has type 0x{kind:08x}, expected JSON"))),
            (1, CHUNK_BIN) => bin = Some(data),
            _ => {} // Unknown chunks are skipped, as the spec says.
        }
        offset = end.next_multiple_of(4);
        chunk_index += 1;
    }
    let json = json.ok_or_else(|| err("no JSON chunk".to_owned()))?;
    Ok((json, bin))
}

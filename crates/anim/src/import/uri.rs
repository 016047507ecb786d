//! URIs of buffers and images: `data:` URIs (base64) and relative file paths, confined to the
//! model's folder.

use std::path::{Component, Path, PathBuf};

/// Decode a `data:[<mime>][;base64],<data>` URI. Returns the MIME type and the bytes.
pub(crate) fn decode_data_uri(uri: &str) -> Result<(Option<String>, Vec<u8>), String> {
    let rest = uri.strip_prefix("data:").ok_or("not a data URI")?;
    let (header, payload) = rest.split_once(',').ok_or("data URI has no ',' separator")?;
    let (mime, is_base64) = match header.strip_suffix(";base64") {
        Some(mime) => (mime, true),
        None => (header, false),
    };
    let mime = (!mime.is_empty()).then(|| mime.to_owned());
    let bytes = if is_base64 { decode_base64(payload)? } else { percent_decode(payload)?.into_bytes() };
    Ok((mime, bytes))
}

/// Standard base64 (RFC 4648) with optional padding; whitespace is not allowed.
pub(crate) fn decode_base64(text: &str) -> Result<Vec<u8>, String> {
    let text = text.trim_end_matches('=');
    let mut out = Vec::with_capacity(text.len() / 4 * 3 + 3);
    let mut acc: u32 = 0;
    let mut bits = 0;
    for (i, c) in text.bytes().enumerate() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return Err(format!("invalid base64 character at position {i}")),
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    if bits >= 6 {
        return Err("truncated base64 data".to_owned());
    }
    Ok(out)
}

/// Decode `%XX` escapes.
pub(crate) fn percent_decode(text: &str) -> Result<String, String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
            let value = hex.and_then(|h| u8::from_str_radix(h, 16).ok()).ok_or("invalid %-escape")?;
            out.push(value);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| "%-escapes do not decode to UTF-8".to_owned())
}

/// Resolve a relative URI against the model's folder. Absolute paths, `..` components and
/// other schemes are refused so a file can only read beside itself.
pub(crate) fn resolve_relative(base_dir: &Path, uri: &str) -> Result<PathBuf, String> {
    if let Some((scheme, _)) = uri.split_once(':') {
        let is_scheme = !scheme.is_empty()
            && scheme.len() > 1 // "C:" style drive letters are caught below as absolute paths
            && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
        if is_scheme {
            return Err(format!("scheme \"{scheme}:\" is not allowed (only relative files and data: URIs)"));
        }
    }
    let decoded = percent_decode(uri)?;
    let relative = Path::new(&decoded);
    if decoded.starts_with('/') || decoded.starts_with('\\') || relative.is_absolute() || decoded.contains(':') {
        return Err("absolute paths are not allowed".to_owned());
    }
    for component in relative.components() {
        match component {
            Component::Normal(_) | Component::CurDir => {}
            _ => return Err("paths leaving the model's folder are not allowed".to_owned()),
        }
    }
    if decoded.split(['/', '\\']).any(|part| part == "..") {
        return Err("paths leaving the model's folder are not allowed".to_owned());
    }
    Ok(base_dir.join(relative))
}

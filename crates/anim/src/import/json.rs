//! Typed reads from the glTF JSON, each failure naming the object and property.

use serde_json::Value;

use crate::error::{ImportError, ObjectRef, Problem, invalid};

/// A property, treating `null` as absent.
pub(crate) fn get<'v>(value: &'v Value, key: &str) -> Option<&'v Value> {
    value.get(key).filter(|v| !v.is_null())
}

fn bad(object: &ObjectRef, field: &'static str, reason: &str) -> ImportError {
    invalid(object, Problem::BadValue { field, reason: reason.to_owned() })
}

/// A top-level array (absent → empty).
pub(crate) fn top_array<'v>(root: &'v Value, key: &'static str) -> Result<&'v [Value], ImportError> {
    match get(root, key) {
        None => Ok(&[]),
        Some(Value::Array(items)) => Ok(items),
        Some(_) => Err(bad(&ObjectRef::root(), key, "must be an array")),
    }
}

/// An array property of an object (absent → empty).
pub(crate) fn array<'v>(value: &'v Value, object: &ObjectRef, key: &'static str) -> Result<&'v [Value], ImportError> {
    match get(value, key) {
        None => Ok(&[]),
        Some(Value::Array(items)) => Ok(items),
        Some(_) => Err(bad(object, key, "must be an array")),
    }
}

/// The object's `name`, when it is a string.
pub(crate) fn name(value: &Value) -> Option<String> {
    get(value, "name").and_then(Value::as_str).map(str::to_owned)
}

/// An optional non-negative integer.
pub(crate) fn opt_u64(value: &Value, object: &ObjectRef, key: &'static str) -> Result<Option<u64>, ImportError> {
    match get(value, key) {
        None => Ok(None),
        Some(v) => v.as_u64().map(Some).ok_or_else(|| bad(object, key, "must be a non-negative integer")),
    }
}

/// A required non-negative integer.
pub(crate) fn req_u64(value: &Value, object: &ObjectRef, key: &'static str) -> Result<u64, ImportError> {
    opt_u64(value, object, key)?.ok_or_else(|| invalid(object, Problem::MissingField(key)))
}

/// An optional index into an array of `count` objects of `kind`.
pub(crate) fn opt_index(
    value: &Value,
    object: &ObjectRef,
    key: &'static str,
    kind: &'static str,
    count: usize,
) -> Result<Option<usize>, ImportError> {
    match opt_u64(value, object, key)? {
        None => Ok(None),
        Some(index) => check_index(index, object, key, kind, count).map(Some),
    }
}

/// A required index into an array of `count` objects of `kind`.
pub(crate) fn req_index(
    value: &Value,
    object: &ObjectRef,
    key: &'static str,
    kind: &'static str,
    count: usize,
) -> Result<usize, ImportError> {
    opt_index(value, object, key, kind, count)?.ok_or_else(|| invalid(object, Problem::MissingField(key)))
}

/// Check an index read from an array element.
pub(crate) fn check_index(
    index: u64,
    object: &ObjectRef,
    field: &'static str,
    kind: &'static str,
    count: usize,
) -> Result<usize, ImportError> {
    usize::try_from(index)
        .ok()
        .filter(|&i| i < count)
        .ok_or_else(|| invalid(object, Problem::IndexOutOfRange { field, index, kind, count }))
}

/// A list of indices (e.g. `children`, `joints`).
pub(crate) fn index_list(
    value: &Value,
    object: &ObjectRef,
    key: &'static str,
    kind: &'static str,
    count: usize,
) -> Result<Vec<usize>, ImportError> {
    array(value, object, key)?
        .iter()
        .map(|v| {
            let index = v.as_u64().ok_or_else(|| bad(object, key, "must hold non-negative integers"))?;
            check_index(index, object, key, kind, count)
        })
        .collect()
}

/// An optional fixed-length array of finite numbers.
pub(crate) fn opt_floats<const N: usize>(
    value: &Value,
    object: &ObjectRef,
    key: &'static str,
) -> Result<Option<[f32; N]>, ImportError> {
    let Some(v) = get(value, key) else { return Ok(None) };
    let items = v
        .as_array()
        .filter(|a| a.len() == N)
        .ok_or_else(|| bad(object, key, &format!("must be an array of {N} numbers")))?;
    let mut out = [0.0; N];
    for (i, (o, item)) in out.iter_mut().zip(items).enumerate() {
        let x = item.as_f64().ok_or_else(|| bad(object, key, "must hold numbers"))? as f32;
        if !x.is_finite() {
            return Err(invalid(object, Problem::NonFinite { field: key, element: i }));
        }
        *o = x;
    }
    Ok(Some(out))
}

/// An optional array of finite numbers of any length.
pub(crate) fn opt_float_list(
    value: &Value,
    object: &ObjectRef,
    key: &'static str,
) -> Result<Option<Vec<f32>>, ImportError> {
    let Some(v) = get(value, key) else { return Ok(None) };
    let items = v.as_array().ok_or_else(|| bad(object, key, "must be an array of numbers"))?;
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let x = item.as_f64().ok_or_else(|| bad(object, key, "must hold numbers"))? as f32;
            if x.is_finite() { Ok(x) } else { Err(invalid(object, Problem::NonFinite { field: key, element: i })) }
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// An optional finite number.
pub(crate) fn opt_f32(value: &Value, object: &ObjectRef, key: &'static str) -> Result<Option<f32>, ImportError> {
    match get(value, key) {
        None => Ok(None),
        Some(v) => {
            let x = v.as_f64().ok_or_else(|| bad(object, key, "must be a number"))? as f32;
            if x.is_finite() {
                Ok(Some(x))
            } else {
                Err(invalid(object, Problem::NonFinite { field: key, element: 0 }))
            }
        }
    }
}

/// An optional string.
pub(crate) fn opt_str<'v>(
    value: &'v Value,
    object: &ObjectRef,
    key: &'static str,
) -> Result<Option<&'v str>, ImportError> {
    match get(value, key) {
        None => Ok(None),
        Some(v) => v.as_str().map(Some).ok_or_else(|| bad(object, key, "must be a string")),
    }
}

/// Require a JSON object.
pub(crate) fn expect_object(value: &Value, object: &ObjectRef) -> Result<(), ImportError> {
    if value.is_object() { Ok(()) } else { Err(bad(object, "(object)", "must be a JSON object")) }
}

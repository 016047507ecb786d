//! ARCHITECTURE.md is the map, and the map must be true: every row's "may import" column lists
//! exactly the modules and crates its files import, no modules import each other in a cycle, and
//! no file imports a layer above its own (the "Layers" table, lowest first). Reads the sources as
//! text (no build needed): paths after `crate::`, `super::` and crate names, names re-exported by
//! `pub use` followed to the module that defines them, whole files with comments, string
//! literals and `#[cfg(test)]` modules left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A crate of the workspace: its source folder and its manifest, whose `[dependencies]` are the
/// external crates its files may name (plus `extra`).
struct Crate {
    /// The crate's name as code writes it.
    name: &'static str,
    src: &'static str,
    manifest: &'static str,
    /// Crates named in code that are no dependency (the binary's own library, `animtune`).
    extra: &'static [&'static str],
}

const CRATES: [Crate; 4] = [
    Crate { name: "anim", src: "crates/anim/src", manifest: "crates/anim/Cargo.toml", extra: &[] },
    Crate { name: "decode", src: "crates/decode/src", manifest: "crates/decode/Cargo.toml", extra: &[] },
    Crate { name: "animtune", src: "src", manifest: "Cargo.toml", extra: &["animtune"] },
    Crate { name: "devtools", src: "crates/devtools/src", manifest: "crates/devtools/Cargo.toml", extra: &[] },
];

/// The crate names (as code writes them: `-` becomes `_`) of a manifest's `[dependencies]` and
/// platform-specific `[target.'cfg(…)'.dependencies]`.
fn dependencies(manifest: &str) -> BTreeSet<String> {
    let mut in_dependencies = false;
    let mut out = BTreeSet::new();
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_dependencies =
                line == "[dependencies]" || (line.starts_with("[target.") && line.ends_with(".dependencies]"));
        } else if in_dependencies && !line.starts_with('#') {
            let key: String = line.chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '-').collect();
            if !key.is_empty() {
                out.insert(key.replace('-', "_"));
            }
        }
    }
    out
}

/// The external crates `krate`'s files may name.
fn externals_of(krate: &Crate, root: &Path) -> BTreeSet<String> {
    let manifest = std::fs::read_to_string(root.join(krate.manifest)).expect("Cargo.toml");
    let mut out = dependencies(&manifest);
    out.extend(krate.extra.iter().map(|e| (*e).to_owned()));
    out
}

/// Source text without comments, string and character literals, and `#[cfg(test)]` modules
/// (wherever they are in the file: code after one is read like any other).
fn code_of(source: &str) -> String {
    without_test_modules(&without_literals(source))
}

/// `code` (already without comments and literals) without its `#[cfg(test)] mod …` items: a
/// module's `{ … }` block, or a `mod name;` declaration.
fn without_test_modules(code: &str) -> String {
    const ATTRIBUTE: &str = "#[cfg(test)]";
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(at) = rest.find(ATTRIBUTE) {
        let after = &rest[at + ATTRIBUTE.len()..];
        let item = after.trim_start();
        let is_module = item.starts_with("mod ") || item.starts_with("pub mod ") || item.starts_with("pub(crate) mod ");
        if !is_module {
            out.push_str(&rest[..at + ATTRIBUTE.len()]);
            rest = after;
            continue;
        }
        out.push_str(&rest[..at]);
        let item_at = after.len() - item.len();
        let end = match (item.find('{'), item.find(';')) {
            (Some(open), semicolon) if semicolon.is_none_or(|s| s > open) => {
                let mut depth = 0usize;
                let mut close = item.len();
                for (i, c) in item.char_indices().skip_while(|&(i, _)| i < open) {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                close = i + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                close
            }
            (_, Some(semicolon)) => semicolon + 1,
            _ => item.len(),
        };
        rest = &after[item_at + end..];
    }
    out.push_str(rest);
    out
}

/// Source text without comments and string and character literals.
fn without_literals(source: &str) -> String {
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            i += 2;
            while i + 1 < chars.len() && !(chars[i] == '*' && chars[i + 1] == '/') {
                i += 1;
            }
            i += 2;
        } else if c == '"'
            || (c == 'r' && (next == Some('"') || next == Some('#')) && !is_ident(chars.get(i.wrapping_sub(1))))
        {
            // A string (raw strings: r"…", r#"…"#).
            let hashes = if c == 'r' {
                let mut h = 0;
                i += 1;
                while chars.get(i) == Some(&'#') {
                    h += 1;
                    i += 1;
                }
                Some(h)
            } else {
                None
            };
            i += 1;
            while i < chars.len() {
                match hashes {
                    None if chars[i] == '\\' => i += 2,
                    None if chars[i] == '"' => break,
                    Some(h) if chars[i] == '"' && (0..h).all(|k| chars.get(i + 1 + k) == Some(&'#')) => {
                        i += h;
                        break;
                    }
                    _ => i += 1,
                }
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' && (chars.get(i + 2) == Some(&'\'') || next == Some('\\')) {
            // A character literal ('a', '\n'); lifetimes ('a) are left alone.
            i += 1;
            while i < chars.len() && chars[i] != '\'' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("' '");
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn is_ident(c: Option<&char>) -> bool {
    c.is_some_and(|c| c.is_alphanumeric() || *c == '_')
}

/// Every path written in `code` that starts with an identifier or `crate`/`super`, as its
/// segments (`use a::{b, c::d}` gives `a::b` and `a::c::d`).
fn paths(code: &str) -> Vec<Vec<String>> {
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let starts_path = is_ident(Some(&chars[i]))
            && !is_ident(chars.get(i.wrapping_sub(1)))
            && !(i >= 1 && (chars[i - 1] == ':' || chars[i - 1] == '.'));
        if !starts_path {
            i += 1;
            continue;
        }
        let (segments, end) = read_path(&chars, i);
        let mut next = end;
        if segments.len() > 1 || chars.get(end) == Some(&'{') {
            next = expand(&chars, segments, end, &mut out);
        }
        i = next.max(i + 1);
    }
    out
}

/// Read `a::b::c` from `at`; returns the segments and where it ends (after a trailing `::`).
fn read_path(chars: &[char], mut at: usize) -> (Vec<String>, usize) {
    let mut segments = Vec::new();
    loop {
        let start = at;
        while is_ident(chars.get(at)) {
            at += 1;
        }
        if at == start {
            break;
        }
        segments.push(chars[start..at].iter().collect());
        if chars.get(at) == Some(&':') && chars.get(at + 1) == Some(&':') {
            at += 2;
            while chars.get(at).is_some_and(|c| c.is_whitespace()) {
                at += 1;
            }
        } else {
            break;
        }
    }
    (segments, at)
}

/// Record `prefix`, expanding a `{…}` group that follows at `at`; returns where the path (or the
/// group) ends.
fn expand(chars: &[char], prefix: Vec<String>, at: usize, out: &mut Vec<Vec<String>>) -> usize {
    if chars.get(at) != Some(&'{') {
        out.push(prefix);
        return at;
    }
    let mut depth = 0;
    let mut end = at;
    while end < chars.len() {
        match chars[end] {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            _ => {}
        }
        end += 1;
    }
    let mut i = at + 1;
    while i < end {
        while i < end && !is_ident(Some(&chars[i])) {
            i += 1;
        }
        if i >= end {
            break;
        }
        let (segments, next) = read_path(chars, i);
        let mut path = prefix.clone();
        path.extend(segments);
        if chars.get(next) == Some(&'{') {
            i = expand(chars, path, next, out) + 1;
        } else {
            out.push(path);
            // Skip to the next item of the group (past `as name`).
            while i < end && chars[i] != ',' {
                i += 1;
            }
            i += 1;
        }
    }
    end
}

/// A source file as a module path (`render::mesh`, `import`, `lib`).
fn module_of(src: &Path, file: &Path) -> String {
    let relative = file.strip_prefix(src).unwrap_or(file).with_extension("");
    let mut parts: Vec<String> = relative.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts.join("::")
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        for path in std::fs::read_dir(&folder).unwrap_or_else(|e| panic!("{}: {e}", folder.display())).flatten() {
            let path = path.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs")
                // Test-only modules (`#[cfg(test)] mod tests;`) may use anything.
                && path.file_name().is_some_and(|n| n != "tests.rs")
            {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// What one file imports: modules of its crate (full paths) and external crates.
#[derive(Default, Debug)]
struct Imports {
    modules: BTreeSet<String>,
    externals: BTreeSet<String>,
}

/// Names a module re-exports (`pub use …`): (module, name) → the module that defines it.
type Reexports = BTreeMap<(String, String), String>;

/// The module a path written in module `me` names: the longest module it starts with, or, when
/// the next segment is a name that module re-exports, the module that defines it. `lib` is the
/// crate root (`crate::Name` of a name the root re-exports).
fn resolve(path: &[String], modules: &BTreeSet<String>, reexports: &Reexports) -> Option<String> {
    let found = (1..=path.len()).rev().find(|&k| modules.contains(&path[..k].join("::")));
    let (mut module, mut next) = match found {
        Some(k) => (path[..k].join("::"), k),
        None => ("lib".to_owned(), 0),
    };
    // Follow re-exports of re-exports (a few hops at most).
    for _ in 0..4 {
        let Some(name) = path.get(next) else { break };
        let Some(target) = reexports.get(&(module.clone(), name.clone())) else { break };
        if *target == module {
            break;
        }
        module = target.clone();
        next = path.len();
    }
    (module != "lib").then_some(module)
}

/// A path written in module `me` as a path from the crate root (`crate::`, `super::`, `self::`;
/// a `pub use` of a child module, `pub use spec::X`, when `relative_children`), else `None`.
fn absolute(me: &str, path: &[String], modules: &BTreeSet<String>, relative_children: bool) -> Option<Vec<String>> {
    let own: Vec<String> = if me == "lib" { Vec::new() } else { me.split("::").map(str::to_owned).collect() };
    match path.first()?.as_str() {
        "crate" => Some(path[1..].to_vec()),
        "super" => {
            let mut parent = own;
            parent.pop();
            parent.extend(path[1..].iter().cloned());
            Some(parent)
        }
        "self" => {
            let mut here = own;
            here.extend(path[1..].iter().cloned());
            Some(here)
        }
        _ if relative_children => {
            let mut here = own;
            here.extend(path.iter().cloned());
            modules.contains(&here[..here.len().min(own_len(me) + 1)].join("::")).then_some(here)
        }
        _ => None,
    }
}

fn own_len(me: &str) -> usize {
    if me == "lib" { 0 } else { me.split("::").count() }
}

/// Every `pub use` of the crate's files, as (module, exported name) → defining module.
fn reexports_of(krate: &Crate, modules: &BTreeSet<String>, files: &[PathBuf], root: &Path) -> Reexports {
    let src = root.join(krate.src);
    let mut found: Vec<(String, Vec<String>)> = Vec::new();
    for file in files {
        let me = module_of(&src, file);
        let code = code_of(&std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display())));
        let mut rest = code.as_str();
        while let Some(at) = rest.find("pub use ").or_else(|| rest.find("pub(crate) use ")) {
            let statement = &rest[at..];
            let end = statement.find(';').unwrap_or(statement.len());
            let body = statement[..end].trim_start_matches("pub(crate) use ").trim_start_matches("pub use ");
            for path in paths(body) {
                if let Some(absolute) = absolute(&me, &path, modules, true) {
                    found.push((me.clone(), absolute));
                }
            }
            rest = &statement[end..];
        }
    }
    let mut out = Reexports::new();
    // Resolve in rounds so a re-export of a re-export lands on the defining module.
    for _ in 0..3 {
        for (me, path) in &found {
            let Some(name) = path.last() else { continue };
            if let Some(target) = resolve(path, modules, &out)
                && target != *me
            {
                out.insert((me.clone(), name.clone()), target);
            }
        }
    }
    out
}

fn imports_of(
    krate: &Crate,
    externals: &BTreeSet<String>,
    modules: &BTreeSet<String>,
    reexports: &Reexports,
    file: &Path,
    root: &Path,
) -> Imports {
    let src = root.join(krate.src);
    let me = module_of(&src, file);
    let code = code_of(&std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display())));
    let mut imports = Imports::default();
    for path in paths(&code) {
        match path[0].as_str() {
            "crate" | "super" | "self" => {
                if let Some(module) = absolute(&me, &path, modules, false).and_then(|p| resolve(&p, modules, reexports))
                {
                    imports.modules.insert(module);
                }
            }
            name if externals.contains(name) => {
                imports.externals.insert(name.to_owned());
            }
            _ => {}
        }
    }
    imports.modules.remove(&me);
    imports
}

/// One row of the table: its path and the names in its "may import" column.
struct Row {
    path: String,
    modules: BTreeSet<String>,
    externals: BTreeSet<String>,
}

fn rows(architecture: &str) -> Vec<Row> {
    let mut out = Vec::new();
    for line in architecture.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let (Some(path_cell), Some(may_import)) = (cells.get(1), cells.get(3)) else { continue };
        let Some(path) = path_cell.split('`').nth(1) else { continue };
        let mut row = Row { path: path.to_owned(), modules: BTreeSet::new(), externals: BTreeSet::new() };
        for item in may_import.split(',').map(str::trim).filter(|i| !i.is_empty() && *i != "—") {
            if let Some(name) = item.strip_prefix('`') {
                row.modules.insert(name.trim_end_matches('`').to_owned());
            } else {
                let name: String = item.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                row.externals.insert(name);
            }
        }
        out.push(row);
    }
    out
}

#[test]
fn the_import_table_matches_the_code_no_modules_import_each_other_in_a_cycle_and_no_layer_imports_one_above() {
    let root = devtools::ci::repo_root();
    let checked = check(&root, &CRATES);
    assert!(checked.problems.is_empty(), "ARCHITECTURE.md and the code disagree:\n{}", checked.problems.join("\n"));
    assert!(checked.rows >= 25, "only {} rows of ARCHITECTURE.md matched source files", checked.rows);
    assert!(checked.files >= 70, "only {} files checked", checked.files);
    assert!(checked.layered >= 70, "only {} files placed in a layer", checked.layered);
}

/// What [`check`] found.
struct Checked {
    problems: Vec<String>,
    rows: usize,
    files: usize,
    layered: usize,
}

/// One entry of the "Layers" table: its rank (lowest first) and the paths in it.
struct Layer {
    rank: usize,
    name: String,
    paths: Vec<String>,
}

/// The "Layers" table: rows `| N | name | `path`, `path` |`, lowest first.
fn layers(architecture: &str) -> Vec<Layer> {
    let mut out = Vec::new();
    for line in architecture.lines().filter(|l| l.starts_with("| ")) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let (Some(rank), Some(name), Some(paths)) = (cells.get(1), cells.get(2), cells.get(3)) else { continue };
        let Ok(rank) = rank.parse::<usize>() else { continue };
        let paths = paths.split('`').skip(1).step_by(2).map(str::to_owned).collect();
        out.push(Layer { rank, name: (*name).to_owned(), paths });
    }
    out
}

/// The layer of `module` of `krate` (`lib` for the crate itself): the entry naming its file,
/// its folder or its crate (the most specific wins).
fn layer_of<'a>(layers: &'a [Layer], krate: &Crate, module: &str) -> Option<&'a Layer> {
    let crate_path = krate.src.trim_end_matches("/src").trim_end_matches("src").trim_end_matches('/');
    let file =
        if module == "lib" { krate.src.to_owned() } else { format!("{}/{}", krate.src, module.replace("::", "/")) };
    let mut best: Option<(usize, &Layer)> = None;
    for layer in layers {
        for path in &layer.paths {
            let entry = path.trim_end_matches('/').trim_end_matches(".rs");
            let specificity = if entry == file {
                3 * entry.len()
            } else if file.starts_with(&format!("{entry}/")) {
                2 * entry.len()
            } else if !crate_path.is_empty() && entry == crate_path {
                entry.len()
            } else {
                continue;
            };
            if best.is_none_or(|(s, _)| specificity > s) {
                best = Some((specificity, layer));
            }
        }
    }
    best.map(|(_, layer)| layer)
}

/// Check the sources of `crates` under `root` against its ARCHITECTURE.md.
fn check(root: &Path, crates: &[Crate]) -> Checked {
    let architecture = std::fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let table = rows(&architecture);
    let layers = layers(&architecture);
    let mut problems = Vec::new();
    let mut rows_checked = 0;
    let mut layered = 0;
    let mut files_checked = BTreeSet::new();
    for krate in crates {
        let src = root.join(krate.src);
        let crate_externals = externals_of(krate, root);
        let files = rust_files(&src);
        let modules: BTreeSet<String> = files.iter().map(|f| module_of(&src, f)).collect();
        let reexports = reexports_of(krate, &modules, &files, root);
        let imports: BTreeMap<String, Imports> = files
            .iter()
            .map(|f| (module_of(&src, f), imports_of(krate, &crate_externals, &modules, &reexports, f, root)))
            .collect();
        let top = |module: &str| module.split("::").next().unwrap_or_default().to_owned();

        for row in &table {
            // Which files the row covers: a file, a folder, or the whole crate (externals only).
            let crate_path = krate.src.trim_end_matches("/src").trim_end_matches("src");
            let (covered, whole_crate): (Vec<&String>, bool) = if row.path == crate_path.trim_end_matches('/') {
                (imports.keys().collect(), true)
            } else if let Some(relative) = row.path.strip_prefix(&format!("{}/", krate.src)) {
                let module = relative.trim_end_matches('/').trim_end_matches(".rs").replace('/', "::");
                let in_row = |m: &String| *m == module || m.starts_with(&format!("{module}::"));
                (imports.keys().filter(|m| in_row(m)).collect(), false)
            } else {
                continue;
            };
            if covered.is_empty() {
                problems.push(format!("ARCHITECTURE.md row `{}` names no source file", row.path));
                continue;
            }
            rows_checked += 1;
            let own_top: BTreeSet<String> = covered.iter().map(|m| top(m)).collect();
            let mut modules = BTreeSet::new();
            let mut externals = BTreeSet::new();
            for module in &covered {
                files_checked.insert(format!("{}::{module}", krate.src));
                let found = &imports[*module];
                externals.extend(found.externals.iter().cloned());
                modules.extend(found.modules.iter().map(|m| top(m)).filter(|m| !own_top.contains(m)));
            }
            let row_modules: BTreeSet<String> =
                row.modules.iter().filter(|m| !crate_externals.contains(*m)).cloned().collect();
            if !whole_crate && modules != row_modules {
                problems
                    .push(format!("`{}` imports modules {modules:?}; ARCHITECTURE.md says {row_modules:?}", row.path));
            }
            // The binary's internal crate is listed like a module (`animtune`).
            let listed: BTreeSet<String> = row
                .externals
                .iter()
                .chain(row.modules.iter().filter(|m| crate_externals.contains(*m)))
                .cloned()
                .collect();
            if externals != listed {
                problems.push(format!("`{}` uses crates {externals:?}; ARCHITECTURE.md says {listed:?}", row.path));
            }
        }

        // The order of layers: nothing imports a layer above its own. Development tooling
        // (devtools) is outside the layers; a crate root only declares its modules.
        if krate.name != "devtools" {
            for (module, found) in &imports {
                if module == "lib" {
                    continue;
                }
                let Some(own) = layer_of(&layers, krate, module) else {
                    problems.push(format!("{}: module `{module}` is in no layer of ARCHITECTURE.md", krate.src));
                    continue;
                };
                layered += 1;
                let above = |what: String, layer: Option<&Layer>| match layer {
                    Some(layer) if layer.rank > own.rank => Some(format!(
                        "{}: `{module}` (layer {} {}) imports {what} (layer {} {}, above it)",
                        krate.src, own.rank, own.name, layer.rank, layer.name
                    )),
                    _ => None,
                };
                for imported in &found.modules {
                    problems.extend(above(format!("`{imported}`"), layer_of(&layers, krate, imported)));
                }
                for external in &found.externals {
                    if let Some(other) = crates.iter().find(|c| c.name == *external && c.name != krate.name) {
                        problems.extend(above(format!("crate `{external}`"), layer_of(&layers, other, "lib")));
                    }
                }
            }
        }

        // Cycles between modules (a child using its parent's re-exports is not one).
        let graph: BTreeMap<&String, Vec<&String>> = imports
            .iter()
            .map(|(m, i)| (m, i.modules.iter().filter(|d| !m.starts_with(&format!("{d}::"))).collect()))
            .collect();
        for cycle in strongly_connected(&graph) {
            let mut names: Vec<&str> = cycle.iter().map(|s| s.as_str()).collect();
            names.sort_unstable();
            problems.push(format!("{}: modules {names:?} import each other", krate.src));
        }
    }
    Checked { problems, rows: rows_checked, files: files_checked.len(), layered }
}

#[test]
fn the_checker_catches_an_import_through_a_reexport_code_after_a_test_module_and_a_layer_inversion() {
    let dir = devtools::TempDir::new("architecture");
    let write = |path: &str, text: &str| {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("folder");
        std::fs::write(path, text).expect("write");
    };
    write("Cargo.toml", "[package]\nname = \"toy\"\n\n[dependencies]\nglam = \"0.30\"\n");
    write(
        "ARCHITECTURE.md",
        "| module | owns | may import |\n|---|---|---|\n\
         | `src/low.rs` | low | `high` |\n| `src/high.rs` | high | glam |\n| `src/late.rs` | late | — |\n\n\
         | layer | name | paths |\n|---|---|---|\n| 1 | low | `src/low.rs`, `src/late.rs` |\n| 2 | high | `src/high.rs` |\n",
    );
    write("src/lib.rs", "pub mod high;\npub mod late;\npub mod low;\npub use high::Thing;\n");
    // `low` names `high`'s type only through the crate root's re-export.
    write("src/low.rs", "use crate::Thing;\npub fn f(_: Thing) {}\n");
    write("src/high.rs", "pub struct Thing(pub glam::Vec3);\n");
    // `late` imports `high` after its test module, which the old reader never looked at.
    write("src/late.rs", "#[cfg(test)]\nmod tests {\n    use crate::low::f;\n}\n\nuse crate::high::Thing;\n");
    let toy = [Crate { name: "toy", src: "src", manifest: "Cargo.toml", extra: &[] }];
    let checked = check(dir.path(), &toy);
    let all = checked.problems.join("\n");
    assert!(all.contains("`src/late.rs` imports modules {\"high\"}"), "{all}");
    assert!(all.contains("`low` (layer 1 low) imports `high` (layer 2 high, above it)"), "{all}");
    assert!(all.contains("`late` (layer 1 low) imports `high`"), "{all}");
    // The test module's own import (`low`) is not counted, and `low`'s row is right.
    assert!(!all.contains("`src/low.rs` imports"), "{all}");
    assert_eq!(checked.problems.len(), 3, "{all}");
}

/// The strongly connected components of more than one module (Tarjan).
fn strongly_connected<'a>(graph: &BTreeMap<&'a String, Vec<&'a String>>) -> Vec<Vec<&'a String>> {
    struct State<'a> {
        index: BTreeMap<&'a String, usize>,
        low: BTreeMap<&'a String, usize>,
        stack: Vec<&'a String>,
        next: usize,
        out: Vec<Vec<&'a String>>,
    }
    fn visit<'a>(v: &'a String, graph: &BTreeMap<&'a String, Vec<&'a String>>, s: &mut State<'a>) {
        s.index.insert(v, s.next);
        s.low.insert(v, s.next);
        s.next += 1;
        s.stack.push(v);
        for &w in graph.get(v).map_or(&[][..], Vec::as_slice) {
            if !graph.contains_key(w) {
                continue;
            }
            if !s.index.contains_key(w) {
                visit(w, graph, s);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.stack.contains(&w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                component.push(w);
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                s.out.push(component);
            }
        }
    }
    let mut state = State { index: BTreeMap::new(), low: BTreeMap::new(), stack: Vec::new(), next: 0, out: Vec::new() };
    for &v in graph.keys() {
        if !state.index.contains_key(v) {
            visit(v, graph, &mut state);
        }
    }
    state.out
}

#[test]
fn the_reader_finds_paths_in_use_groups_and_ignores_comments_and_strings() {
    let code = code_of(
        "use crate::{pose::SoaPose, simd8::{F8, Isa}};\n// crate::model\nlet s = \"crate::clip\"; let c = '{';\n\
         fn f<'a>(x: &'a glam::Vec3) { super::interp::lerp(); }\n#[cfg(test)]\nmod tests { use crate::rng; }",
    );
    let found: Vec<String> = paths(&code).into_iter().map(|p| p.join("::")).collect();
    assert_eq!(
        found,
        ["crate::pose::SoaPose", "crate::simd8::F8", "crate::simd8::Isa", "glam::Vec3", "super::interp::lerp"]
    );
}

//! The documentation is checked like code: every relative link and image in `README.md`,
//! `CONTRIBUTING.md`, `ARCHITECTURE.md` and `docs/**/*.md` resolves (the file exists and, for a
//! `#anchor` into a Markdown file, a heading of that name exists), and every `animtune …` command
//! in a fenced code block parses with the real clap definitions (`animtune::args::Args`), so a
//! renamed flag breaks this test, not the reader.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use clap::Parser;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The Markdown files the checks cover, relative to the repository root.
fn markdown_files() -> Vec<PathBuf> {
    fn walk(folder: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> =
            std::fs::read_dir(folder).expect("docs/ exists").flatten().map(|e| e.path()).collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path);
            }
        }
    }
    let mut files: Vec<PathBuf> =
        ["README.md", "CONTRIBUTING.md", "ARCHITECTURE.md"].iter().map(|f| root().join(f)).collect();
    walk(&root().join("docs"), &mut files);
    files
}

/// A line outside fenced code blocks: its number and text.
type ProseLine<'a> = (usize, &'a str);
/// A line of a fenced code block: its number, the block's language and its text.
type CodeLine<'a> = (usize, String, &'a str);

/// Lines outside fenced code blocks, and the fenced blocks' lines.
fn split_fences(text: &str) -> (Vec<ProseLine<'_>>, Vec<CodeLine<'_>>) {
    let mut prose = Vec::new();
    let mut code = Vec::new();
    let mut fence: Option<String> = None;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if let Some(rest) = trimmed.strip_prefix("```") {
            fence = match fence {
                Some(_) => None,
                None => Some(rest.trim().to_owned()),
            };
            continue;
        }
        match &fence {
            Some(language) => code.push((i + 1, language.clone(), line)),
            None => prose.push((i + 1, line)),
        }
    }
    (prose, code)
}

/// Link and image targets of a line of prose: `](target)` with an optional `"title"`, inline code
/// spans left out.
fn link_targets(line: &str) -> Vec<String> {
    let mut without_code = String::with_capacity(line.len());
    let mut in_code = false;
    for c in line.chars() {
        if c == '`' {
            in_code = !in_code;
        } else if !in_code {
            without_code.push(c);
        }
    }
    let mut targets = Vec::new();
    let mut rest = without_code.as_str();
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        let Some(end) = after.find(')') else { break };
        let target = after[..end].split_whitespace().next().unwrap_or_default();
        targets.push(target.to_owned());
        rest = &after[end..];
    }
    targets
}

/// GitHub's anchor of a heading: lower case, punctuation other than `-` and `_` dropped, spaces
/// as `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a Markdown file's headings (a repeated heading gets `-1`, `-2`, … as on GitHub).
fn anchors(text: &str) -> BTreeSet<String> {
    let (prose, _) = split_fences(text);
    let mut out = BTreeSet::new();
    for (_, line) in prose {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if (1..=6).contains(&hashes) && line[hashes..].starts_with(' ') {
            let base = slug(&line[hashes..]);
            let mut anchor = base.clone();
            let mut n = 0;
            while out.contains(&anchor) {
                n += 1;
                anchor = format!("{base}-{n}");
            }
            out.insert(anchor);
        }
    }
    out
}

/// Problems with the relative links of one Markdown file.
fn link_problems(file: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let name = file.strip_prefix(root()).unwrap_or(file).display().to_string();
    let folder = file.parent().expect("a file has a folder");
    let (prose, _) = split_fences(&text);
    let mut problems = Vec::new();
    for (number, line) in prose {
        for target in link_targets(line) {
            if target.contains("://") || target.starts_with("mailto:") || target.is_empty() {
                continue;
            }
            let (path, anchor) = match target.split_once('#') {
                Some((path, anchor)) => (path, Some(anchor)),
                None => (target.as_str(), None),
            };
            let resolved = if path.is_empty() { file.to_path_buf() } else { folder.join(path) };
            if !resolved.exists() {
                problems.push(format!("{name}:{number}: `{target}`: {} does not exist", resolved.display()));
                continue;
            }
            if let Some(anchor) = anchor.filter(|_| resolved.extension().is_some_and(|e| e == "md")) {
                let target_text = std::fs::read_to_string(&resolved).unwrap_or_default();
                if !anchors(&target_text).contains(anchor) {
                    problems.push(format!("{name}:{number}: `{target}`: no heading with the anchor #{anchor}"));
                }
            }
        }
    }
    problems
}

#[test]
fn every_relative_link_and_image_resolves() {
    let files = markdown_files();
    assert!(files.len() >= 10, "README, CONTRIBUTING, ARCHITECTURE and the guides: {files:?}");
    let problems: Vec<String> = files.iter().flat_map(|f| link_problems(f)).collect();
    assert!(problems.is_empty(), "broken links:\n{}", problems.join("\n"));
}

/// Split a shell line into words: whitespace-separated, single and double quotes kept together.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut in_word = false;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// The `animtune` argument lists in a code line: the `$ ` prompt dropped, a trailing `# comment`
/// dropped, split at `&&`, `;` and `|`, output redirections dropped; `animtune …`,
/// `target/release/animtune …` and `cargo run --release [-- …]` count, other lines (output,
/// other tools) do not.
fn commands_in(line: &str) -> Vec<Vec<String>> {
    let line = line.trim().strip_prefix("$ ").unwrap_or(line.trim());
    let line = match line.find(" #") {
        Some(at) => &line[..at],
        None => line,
    };
    let mut out = Vec::new();
    for part in line.split("&&").flat_map(|p| p.split(';')).flat_map(|p| p.split('|')) {
        let part = match part.find('>') {
            Some(at) => &part[..at],
            None => part,
        };
        let words = shell_words(part);
        let args: Option<&[String]> = match words.first().map(String::as_str) {
            Some("animtune" | "target/release/animtune" | "target/debug/animtune") => Some(&words[1..]),
            Some("cargo") if words.get(1).is_some_and(|w| w == "run") => {
                let rest = &words[2..];
                let runs_animtune = rest.iter().take_while(|w| *w != "--").all(|w| w == "--release");
                match rest.iter().position(|w| w == "--") {
                    Some(at) if runs_animtune => Some(&rest[at + 1..]),
                    None if runs_animtune => Some(&[]),
                    _ => None,
                }
            }
            _ => None,
        };
        if let Some(args) = args {
            out.push(args.to_vec());
        }
    }
    out
}

/// Every command of one Markdown file's fenced code blocks, with where it is.
fn documented_commands(file: &Path) -> Vec<(String, Vec<String>)> {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let name = file.strip_prefix(root()).unwrap_or(file).display().to_string();
    let (_, code) = split_fences(&text);
    let mut out = Vec::new();
    for (number, language, line) in code {
        if language == "json" {
            continue;
        }
        for args in commands_in(line) {
            out.push((format!("{name}:{number}"), args));
        }
    }
    out
}

fn parse_problem(args: &[String]) -> Option<String> {
    let argv = std::iter::once("animtune".to_owned()).chain(args.iter().cloned());
    animtune::args::Args::try_parse_from(argv)
        .err()
        .map(|e| e.to_string().lines().next().unwrap_or_default().to_owned())
}

#[test]
fn every_documented_command_parses() {
    let mut checked = 0;
    let mut problems = Vec::new();
    for file in markdown_files() {
        for (at, args) in documented_commands(&file) {
            checked += 1;
            if let Some(problem) = parse_problem(&args) {
                problems.push(format!("{at}: animtune {}: {problem}", args.join(" ")));
            }
        }
    }
    assert!(problems.is_empty(), "commands in the docs that do not parse:\n{}", problems.join("\n"));
    // The guides show dozens; finding almost none means the extraction broke, not that all is well.
    assert!(checked >= 30, "only {checked} documented commands found");
}

/// The checks themselves: a renamed flag, a missing file and a missing anchor are each found, and
/// output lines and other tools are not taken for commands.
#[test]
fn the_checks_catch_a_renamed_flag_and_a_broken_link() {
    let block = "```sh\n$ animtune transition --from Walk --to Run --kind inertialize\nanimtune transition --form Walk --to Run  # renamed flag\nbaked clip \"Walk\" of x\ncargo xtask generate w64\ncargo run --release -- info --format json > info.json\n```\n";
    let (_, code) = split_fences(block);
    let commands: Vec<Vec<String>> = code.iter().flat_map(|(_, _, line)| commands_in(line)).collect();
    assert_eq!(commands.len(), 3, "{commands:?}");
    assert!(parse_problem(&commands[0]).is_none());
    assert!(parse_problem(&commands[1]).is_some_and(|p| p.contains("--form")), "{:?}", parse_problem(&commands[1]));
    assert_eq!(commands[2], ["info", "--format", "json"]);
    assert!(parse_problem(&commands[2]).is_none());

    let temp = devtools::TempDir::new("docs-links");
    temp.write("other.md", b"# Other page\n\n## Tune a transition\n");
    let page = temp.write(
        "page.md",
        b"[ok](other.md#tune-a-transition) [missing](nothing.md) [bad anchor](other.md#nope) `[code](x.md)`\n",
    );
    let problems = link_problems(&page);
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(problems[0].contains("nothing.md") && problems[1].contains("#nope"), "{problems:?}");
}

/// Every image in `screenshots/` is shown by some page (an image no page shows is stale: its
/// script no longer makes it, or the page that showed it moved on).
#[test]
fn every_screenshot_is_shown_by_a_page() {
    let pages: String = markdown_files().iter().map(|f| std::fs::read_to_string(f).unwrap_or_default()).collect();
    let mut unshown = Vec::new();
    let mut count = 0;
    for entry in std::fs::read_dir(root().join("screenshots")).expect("screenshots/ exists").flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        count += 1;
        if !pages.contains(&format!("screenshots/{name})")) {
            unshown.push(name);
        }
    }
    assert!(count > 0, "no screenshots found");
    assert!(unshown.is_empty(), "screenshots no page shows: {unshown:?}");
}

/// The README stays a two-minute read: at most 150 lines, with the two set-up commands in its
/// first screen (the first 30 lines), and the script they name exists and is executable.
#[test]
fn readme_is_short_and_shows_the_set_up_commands_first() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let lines: Vec<&str> = readme.lines().collect();
    assert!(lines.len() <= 150, "README.md has {} lines; move the long parts into docs/", lines.len());
    let first_screen = lines[..lines.len().min(30)].join("\n");
    for command in ["cargo run --release", "scripts/test.sh"] {
        assert!(first_screen.contains(command), "`{command}` is not in the README's first 30 lines");
    }
    let script = root().join("scripts/test.sh");
    assert!(script.is_file(), "scripts/test.sh is missing");
    #[cfg(unix)]
    {
        let mode = std::os::unix::fs::PermissionsExt::mode(
            &std::fs::metadata(&script).expect("scripts/test.sh").permissions(),
        );
        assert!(mode & 0o111 != 0, "scripts/test.sh is not executable");
    }
}

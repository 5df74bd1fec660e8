//! The house's imports run one way (issue 25): every module of `src/` stands on a layer
//! of `docs/ARCHITECTURE.md` ("Layers"), and no file imports a module of a higher layer;
//! no files import each other in a loop of more than two.
//!
//! The imports are read as text from the code (comments and `#[cfg(test)]` modules left
//! out): `use` trees (`crate::`, `super::`, `self::`, a child module's name) and paths
//! written in the code (`crate::a::b::f()`). A path names the file of its longest prefix
//! that is a module file, so `crate::cluster::placement::Shape` is an import of
//! `src/cluster/placement.rs` and `crate::cluster::Cluster` one of `src/cluster.rs`. The
//! binary (`src/bin/burstsim/`) stands above every layer; its files are checked for loops.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module path: `["cluster", "placement"]` for `src/cluster/placement.rs`; the binary's
/// files start with `"bin"`, `"burstsim"`.
type ModPath = Vec<String>;

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The layers of docs/ARCHITECTURE.md, bottom first: the fenced block after the heading
/// "## Layers", one line per layer from the top floor down, modules separated by spaces,
/// `#` starting a comment.
fn layers() -> Vec<Vec<String>> {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/ARCHITECTURE.md")).unwrap();
    let section = doc.split("\n## Layers").nth(1).expect("docs/ARCHITECTURE.md has a '## Layers' section");
    let block = section.split("```").nth(1).expect("the Layers section has a fenced block");
    let mut layers: Vec<Vec<String>> = block
        .lines()
        .skip(1) // the fence's info string
        .map(|l| l.split('#').next().unwrap_or("").split_whitespace().map(str::to_string).collect::<Vec<_>>())
        .filter(|l| !l.is_empty())
        .collect();
    layers.reverse();
    layers
}

/// Removes `//` and `/* */` comments and empties strings (plain and raw) and char
/// literals, so that only code is left to read paths from.
fn strip_comments(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let mut depth = 0;
                while i < b.len() {
                    if b[i..].starts_with(b"/*") {
                        depth += 1;
                        i += 2;
                    } else if b[i..].starts_with(b"*/") {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
            }
            b'r' if (b.get(i + 1) == Some(&b'"') || b.get(i + 1) == Some(&b'#'))
                && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')) =>
            {
                let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
                if b.get(i + 1 + hashes) != Some(&b'"') {
                    out.push(b[i]);
                    i += 1;
                    continue;
                }
                let close: Vec<u8> = std::iter::once(b'"').chain(std::iter::repeat_n(b'#', hashes)).collect();
                i += 2 + hashes;
                while i < b.len() && !b[i..].starts_with(&close) {
                    i += 1;
                }
                i = (i + close.len()).min(b.len());
                out.extend_from_slice(b"\"\"");
            }
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i = (i + 1).min(b.len());
                out.extend_from_slice(b"\"\"");
            }
            b'\'' if b.get(i + 1) == Some(&b'\\') || b.get(i + 2) == Some(&b'\'') => {
                // A char literal ('x', '\n', '"'); a lifetime ('a) has no closing quote.
                i += 2;
                while i < b.len() && b[i] != b'\'' {
                    i += 1;
                }
                i = (i + 1).min(b.len());
                out.extend_from_slice(b"' '");
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Removes inline `#[cfg(test)] mod name { … }` blocks; returns the text and the names of
/// test modules declared as files (`#[cfg(test)] mod tests;`).
fn strip_test_modules(text: &str) -> (String, Vec<String>) {
    let mut out = String::new();
    let mut files = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..i]);
        let after = &rest[i + "#[cfg(test)]".len()..];
        let trimmed = after.trim_start();
        let decl = trimmed.strip_prefix("pub(crate) ").or(trimmed.strip_prefix("pub ")).unwrap_or(trimmed);
        let Some(decl) = decl.strip_prefix("mod ") else {
            rest = after;
            continue;
        };
        let name: String = decl.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        let tail = decl[name.len()..].trim_start();
        if let Some(after_decl) = tail.strip_prefix(';') {
            files.push(name);
            rest = after_decl;
            continue;
        }
        // Skip the braced block.
        let open = tail.find('{').expect("a test module has a body");
        let mut depth = 0usize;
        let mut end = tail.len();
        for (k, c) in tail[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + k + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &tail[end..];
    }
    out.push_str(rest);
    (out, files)
}

/// Expands a `use` tree (`a::{b, c::{d, e}}, f`) into its paths.
fn expand_use(tree: &str, prefix: &[String], out: &mut Vec<Vec<String>>) {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    for (i, c) in tree.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&tree[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&tree[start..]);
    for part in parts {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        if let Some(open) = part.find('{') {
            let head: Vec<String> =
                part[..open].split("::").map(str::trim).filter(|s| !s.is_empty()).map(str::to_string).collect();
            let inner = &part[open + 1..part.rfind('}').expect("balanced braces")];
            let mut p = prefix.to_vec();
            p.extend(head);
            expand_use(inner, &p, out);
        } else {
            let path = part.split(" as ").next().unwrap_or(part);
            let mut p = prefix.to_vec();
            p.extend(path.split("::").map(str::trim).filter(|s| !s.is_empty()).map(str::to_string));
            out.push(p);
        }
    }
}

/// Every `crate::…`, `super::…`, `self::…`, `burstsim::…` or `name::…` path of the code.
fn paths(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut rest = String::new();
    let mut text = code;
    // `use` declarations first (trees), the rest of the code after.
    while let Some(i) = find_word(text, "use") {
        rest.push_str(&text[..i]);
        let end = text[i..].find(';').map_or(text.len(), |j| i + j);
        expand_use(&text[i + 3..end], &[], &mut out);
        text = &text[(end + 1).min(text.len())..];
    }
    rest.push_str(text);
    let bytes = rest.as_bytes();
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut i = 0;
    while i < bytes.len() {
        if is_ident(bytes[i]) && (i == 0 || !(is_ident(bytes[i - 1]) || bytes[i - 1] == b':')) {
            let mut j = i;
            let mut segs = Vec::new();
            loop {
                let s = j;
                while j < bytes.len() && is_ident(bytes[j]) {
                    j += 1;
                }
                segs.push(rest[s..j].to_string());
                if rest[j..].starts_with("::") && j + 2 < bytes.len() && is_ident(bytes[j + 2]) {
                    j += 2;
                } else {
                    break;
                }
            }
            if segs.len() > 1 {
                out.push(segs);
            }
            i = j.max(i + 1);
        } else {
            i += 1;
        }
    }
    out
}

/// The byte offset of `word` standing alone (an item keyword), if any.
fn find_word(text: &str, word: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(k) = text[from..].find(word) {
        let i = from + k;
        let before = i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        let after = bytes.get(i + word.len()).is_some_and(|b| b.is_ascii_whitespace());
        if before && after {
            return Some(i);
        }
        from = i + word.len();
    }
    None
}

/// The module files of `src/`, by module path, with their code (comments and test
/// modules removed); test modules kept in files of their own are left out.
fn modules() -> BTreeMap<ModPath, (PathBuf, String)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let root = src();
    let mut files = Vec::new();
    walk(&root, &mut files);
    let mut mods = BTreeMap::new();
    let mut test_files = BTreeSet::new();
    for f in files {
        let rel = f.strip_prefix(&root).unwrap().with_extension("");
        let mut path: ModPath = rel.iter().map(|s| s.to_string_lossy().into_owned()).collect();
        if matches!(path.last().map(String::as_str), Some("lib" | "main" | "mod")) {
            path.pop();
        }
        let (code, tests) = strip_test_modules(&strip_comments(&std::fs::read_to_string(&f).unwrap()));
        for t in tests {
            let mut p = path.clone();
            p.push(t);
            test_files.insert(p);
        }
        mods.insert(path, (f, code));
    }
    mods.retain(|p, _| !test_files.contains(p));
    mods
}

/// The module file a path written in module `at` names: the longest prefix that is a
/// module file. A bare first name is a child module of `at`, or a sibling when the file
/// imports its parent's names with `use super::*`. `None` for paths outside the crate
/// (std, other crates, local items).
fn resolve(
    at: &ModPath,
    path: &[String],
    glob_of_parent: bool,
    mods: &BTreeMap<ModPath, (PathBuf, String)>,
) -> Option<ModPath> {
    let in_bin = at.first().is_some_and(|s| s == "bin");
    let bin_root: ModPath = vec!["bin".into(), "burstsim".into()];
    let (mut base, rest): (ModPath, &[String]) = match path[0].as_str() {
        "crate" if in_bin => (bin_root, &path[1..]),
        "crate" => (Vec::new(), &path[1..]),
        "burstsim" if in_bin => (Vec::new(), &path[1..]),
        "self" => (at.clone(), &path[1..]),
        "super" => {
            let mut b = at.clone();
            let mut k = 0;
            while path.get(k).is_some_and(|s| s == "super") {
                b.pop();
                k += 1;
            }
            (b, &path[k..])
        }
        first => {
            // A child module of this file, or (through `use super::*`) a sibling.
            let mut child = at.clone();
            child.push(first.to_string());
            let mut sibling = at[..at.len().saturating_sub(1)].to_vec();
            sibling.push(first.to_string());
            if mods.contains_key(&child) {
                (at.clone(), path)
            } else if glob_of_parent && !at.is_empty() && mods.contains_key(&sibling) {
                (at[..at.len() - 1].to_vec(), path)
            } else {
                return None;
            }
        }
    };
    let mut best = mods.contains_key(&base).then(|| base.clone());
    for seg in rest {
        base.push(seg.clone());
        if mods.contains_key(&base) {
            best = Some(base.clone());
        } else {
            break;
        }
    }
    best.filter(|b| !b.is_empty() && b != &vec!["bin".to_string(), "burstsim".to_string()])
}

/// File → the files it imports, and for each import one path that makes it.
fn imports() -> BTreeMap<ModPath, BTreeMap<ModPath, String>> {
    let mods = modules();
    let mut graph = BTreeMap::new();
    for (at, (_, code)) in &mods {
        let edges: &mut BTreeMap<ModPath, String> = graph.entry(at.clone()).or_default();
        let all = paths(code);
        let glob_of_parent = all.iter().any(|p| p.len() == 2 && p[0] == "super" && p[1] == "*");
        for p in all {
            if let Some(target) = resolve(at, &p, glob_of_parent, &mods)
                && &target != at
            {
                edges.entry(target).or_insert_with(|| p.join("::"));
            }
        }
    }
    graph
}

fn file_name(p: &ModPath) -> String {
    if p.is_empty() { "src/lib.rs".into() } else { format!("src/{}.rs", p.join("/")) }
}

#[test]
fn every_module_stands_on_a_layer_and_imports_only_its_own_layer_and_those_below() {
    let layers = layers();
    let rank: BTreeMap<&str, usize> =
        layers.iter().enumerate().flat_map(|(i, l)| l.iter().map(move |m| (m.as_str(), i))).collect();
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    // Public or crate-private (`pub(crate) mod`, issue 46 item 2): every module stands on a layer.
    let declared: Vec<&str> = lib
        .lines()
        .filter_map(|l| l.strip_prefix("pub mod ").or_else(|| l.strip_prefix("pub(crate) mod "))?.strip_suffix(';'))
        .collect();
    assert!(!declared.is_empty());
    for m in &declared {
        assert!(rank.contains_key(m), "src/lib.rs declares `{m}`, which stands on no layer of docs/ARCHITECTURE.md");
    }
    for m in rank.keys() {
        assert!(declared.contains(m), "docs/ARCHITECTURE.md places `{m}`, which src/lib.rs does not declare");
    }
    let mut wrong = Vec::new();
    for (from, targets) in imports() {
        if from.first().is_none_or(|s| s == "bin") {
            continue;
        }
        let own = rank[from[0].as_str()];
        for (to, path) in targets {
            let Some(&theirs) = to.first().and_then(|t| rank.get(t.as_str())) else { continue };
            if theirs > own {
                wrong.push(format!(
                    "{} (layer {}: {}) imports `{path}` from {} (layer {}: {})",
                    file_name(&from),
                    own + 1,
                    from[0],
                    file_name(&to),
                    theirs + 1,
                    to[0]
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "imports that run up a layer:\n{}", wrong.join("\n"));
}

/// Strongly connected components of the file graph (Tarjan), each sorted.
fn loops(graph: &BTreeMap<ModPath, BTreeMap<ModPath, String>>) -> Vec<Vec<ModPath>> {
    struct Walk<'g> {
        graph: &'g BTreeMap<ModPath, BTreeMap<ModPath, String>>,
        index: BTreeMap<&'g ModPath, usize>,
        low: BTreeMap<&'g ModPath, usize>,
        stack: Vec<&'g ModPath>,
        on: BTreeSet<&'g ModPath>,
        out: Vec<Vec<ModPath>>,
    }
    impl<'g> Walk<'g> {
        fn visit(&mut self, v: &'g ModPath) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            self.on.insert(v);
            for w in self.graph.get(v).into_iter().flat_map(|e| e.keys()) {
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let lw = self.low[w];
                    let lv = self.low.get_mut(v).unwrap();
                    *lv = (*lv).min(lw);
                } else if self.on.contains(w) {
                    let iw = self.index[w];
                    let lv = self.low.get_mut(v).unwrap();
                    *lv = (*lv).min(iw);
                }
            }
            if self.low[v] == self.index[v] {
                let mut comp = Vec::new();
                loop {
                    let w = self.stack.pop().unwrap();
                    self.on.remove(w);
                    comp.push(w.clone());
                    if w == v {
                        break;
                    }
                }
                comp.sort();
                self.out.push(comp);
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !walk.index.contains_key(v) {
            walk.visit(v);
        }
    }
    walk.out
}

/// Whether the files of one strongly connected component hold a loop of three or more:
/// they do unless every import among them is returned (a parent and a child that import
/// each other) and those pairs form a tree (else a→b→c→a runs round it).
fn has_long_loop(comp: &[ModPath], graph: &BTreeMap<ModPath, BTreeMap<ModPath, String>>) -> bool {
    let inside: BTreeSet<&ModPath> = comp.iter().collect();
    let mut pairs = 0;
    for a in comp {
        for b in graph[a].keys().filter(|b| inside.contains(b)) {
            if !graph[b].contains_key(a) {
                return true;
            }
            pairs += 1;
        }
    }
    // Connected (strongly) and all edges returned: a tree has n − 1 undirected edges.
    pairs / 2 != comp.len() - 1
}

#[test]
fn no_files_import_each_other_in_a_loop_of_more_than_two() {
    let graph = imports();
    let mut found = Vec::new();
    for comp in loops(&graph) {
        if comp.len() > 2 && has_long_loop(&comp, &graph) {
            let inside: BTreeSet<&ModPath> = comp.iter().collect();
            let mut lines = vec![format!("{} files:", comp.len())];
            for a in &comp {
                for (b, path) in graph[a].iter().filter(|(b, _)| inside.contains(b)) {
                    lines.push(format!("  {} -> {} (`{path}`)", file_name(a), file_name(b)));
                }
            }
            found.push(lines.join("\n"));
        }
    }
    assert!(found.is_empty(), "files that import each other in a loop of more than two:\n{}", found.join("\n"));
}

#[test]
fn the_reader_sees_imports_the_compiler_sees() {
    // The parts of the reader on a small text, so a change to it that stops seeing
    // imports fails here rather than letting every layer pass.
    let code = "use crate::{a::{b, c::D}, e as f};\nuse super::g::H;\n/* crate::p::q */\n//! the charts as `charts/*.png`\nfn x() { crate::k::l(); let s = \"// not a comment\"; let c = '\"'; } // crate::m::n";
    let (code, _) = strip_test_modules(&strip_comments(code));
    let got: Vec<String> = paths(&code).iter().map(|p| p.join("::")).collect();
    for want in ["crate::a::b", "crate::a::c::D", "crate::e", "super::g::H", "crate::k::l"] {
        assert!(got.contains(&want.to_string()), "missing {want} in {got:?}");
    }
    assert!(
        !got.iter().any(|p| p.starts_with("crate::m") || p.starts_with("crate::p")),
        "a comment was read as code: {got:?}"
    );
    let (stripped, files) =
        strip_test_modules("fn a() {}\n#[cfg(test)]\nmod tests {\n use crate::z::Z;\n}\n#[cfg(test)]\nmod more;\n");
    assert!(!stripped.contains("crate::z"));
    assert_eq!(files, vec!["more".to_string()]);
    // Through `use super::*`, a bare `sibling::f` names the sibling's file.
    let p = |s: &str| -> ModPath { s.split('/').map(str::to_string).collect() };
    let mods: BTreeMap<ModPath, (PathBuf, String)> =
        ["v", "v/a", "v/b"].iter().map(|m| (p(m), (PathBuf::new(), String::new()))).collect();
    let call = vec!["b".to_string(), "f".to_string()];
    assert_eq!(resolve(&p("v/a"), &call, true, &mods), Some(p("v/b")));
    assert_eq!(resolve(&p("v/a"), &call, false, &mods), None);
    // A loop of three is long; a parent with two children that import it is not.
    let mut g: BTreeMap<ModPath, BTreeMap<ModPath, String>> = BTreeMap::new();
    for (a, b) in [("r", "r/x"), ("r/x", "r"), ("r", "r/y"), ("r/y", "r")] {
        g.entry(p(a)).or_default().insert(p(b), String::new());
    }
    let star = vec![p("r"), p("r/x"), p("r/y")];
    assert!(!has_long_loop(&star, &g));
    g.get_mut(&p("r/x")).unwrap().insert(p("r/y"), String::new());
    assert!(has_long_loop(&star, &g));
}

/// The names of the types a module declares for other modules (`struct`, `enum`,
/// `type`, `trait` at module level, `pub` or `pub(crate)`): a private helper type
/// cannot be reached by a `use` and so cannot be mistaken for another.
fn type_names(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in code.lines() {
        let mut words = line.split_whitespace().peekable();
        // Module level only: a type declared inside a function body is indented.
        if line.starts_with(char::is_whitespace) {
            continue;
        }
        if !words.next().is_some_and(|w| w.starts_with("pub")) {
            continue;
        }
        if let (Some("struct" | "enum" | "type" | "trait"), Some(name)) = (words.next(), words.next()) {
            let name: String = name.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if !name.is_empty() {
                out.push(name);
            }
        }
    }
    out
}

#[test]
fn no_two_modules_declare_a_type_of_the_same_name() {
    // Issue 46 item 3: one name per concept. Two `Outcome`s or two `Request`s make a
    // reader (and a `use`) guess which is meant; rename the vaguer one.
    let mut seen: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (path, (_, code)) in modules() {
        for name in type_names(&code) {
            seen.entry(name).or_default().push(path.join("::"));
        }
    }
    assert!(seen.contains_key("Scenario") && seen.len() > 100, "the reader found only {} type names", seen.len());
    let twice: Vec<String> =
        seen.iter().filter(|(_, at)| at.len() > 1).map(|(name, at)| format!("{name}: {}", at.join(", "))).collect();
    assert!(twice.is_empty(), "type names declared in more than one module:\n{}", twice.join("\n"));
    assert_eq!(
        type_names("pub struct A {\npub(crate) enum B<T> {\n    pub struct Inner;\nstruct Own;\npub type C = u8;\n"),
        ["A", "B", "C"]
    );
}

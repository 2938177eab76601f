//! Positions in a scenario's text: byte offsets to line/column, and dotted key paths to and
//! from spans, so every error can say where it is and which field it is about.
//!
//! Paths look like `path.loss.p` or `path.loss.drops[1].seq`.

use std::ops::Range;
use toml::de::{DeTable, DeValue};
use toml::Spanned;

/// 1-based line and column (in characters) of a byte offset.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    // Step back to a char boundary so slicing cannot panic on a span inside a character.
    let mut o = offset;
    while !text.is_char_boundary(o) {
        o -= 1;
    }
    let before = &text[..o];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = before[line_start..].chars().count() + 1;
    (line, col)
}

/// One step of a key path.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Step {
    Key(String),
    Index(usize),
}

fn steps(path: &str) -> Vec<Step> {
    let mut out = Vec::new();
    for part in path.split('.') {
        let (key, rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if !key.is_empty() {
            out.push(Step::Key(key.to_string()));
        }
        for idx in rest.split('[').filter(|s| !s.is_empty()) {
            if let Ok(n) = idx.trim_end_matches(']').parse() {
                out.push(Step::Index(n));
            }
        }
    }
    out
}

/// The span of the value at `path` (or of its deepest existing ancestor's key, so that an
/// error about a missing key points at the table that lacks it).
pub fn span_of(doc: &DeTable<'_>, path: &str) -> Option<Range<usize>> {
    let mut best: Option<Range<usize>> = None;
    let mut value: Option<&Spanned<DeValue<'_>>> = None;
    for step in steps(path) {
        let next = match step {
            Step::Key(k) => {
                let t = match value {
                    None => Some(doc),
                    Some(v) => v.get_ref().as_table(),
                };
                // A key's own span anchors tables (their header line) and missing children.
                t.and_then(|t| t.iter().find(|(key, _)| key.get_ref().as_ref() == k))
                    .map(|(key, v)| (key.span(), v))
            }
            Step::Index(i) => value
                .and_then(|v| v.get_ref().as_array())
                .and_then(|a| a.get(i))
                .map(|v| (v.span(), v)),
        };
        let Some((span, v)) = next else { break };
        best = Some(if is_inline(v.get_ref()) {
            v.span()
        } else {
            span
        });
        value = Some(v);
    }
    best
}

/// A scalar or an array of scalars: its value's span is the anchor, not its key's.
fn is_inline(v: &DeValue<'_>) -> bool {
    match v {
        DeValue::Table(_) => false,
        DeValue::Array(a) => !a.iter().any(|e| e.get_ref().is_table()),
        _ => true,
    }
}

/// The dotted path of the deepest key whose key or value span contains `offset`.
pub fn path_at(doc: &DeTable<'_>, offset: usize) -> Option<String> {
    let mut path = String::new();
    if walk_table(doc, offset, &mut path) {
        Some(path)
    } else {
        None
    }
}

fn walk_table(t: &DeTable<'_>, offset: usize, path: &mut String) -> bool {
    for (k, v) in t.iter() {
        let in_key = k.span().contains(&offset);
        let in_value = v.span().contains(&offset);
        if !in_key && !in_value {
            continue;
        }
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(k.get_ref());
        if in_value {
            walk_value(v.get_ref(), offset, path);
        }
        return true;
    }
    // Spans of tables opened by headers do not always cover their keys: search children.
    for (k, v) in t.iter() {
        let len = path.len();
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(k.get_ref());
        let found = match v.get_ref() {
            DeValue::Table(inner) => walk_table(inner, offset, path),
            DeValue::Array(a) => walk_array(a, offset, path),
            _ => false,
        };
        if found {
            return true;
        }
        path.truncate(len);
    }
    false
}

fn walk_value(v: &DeValue<'_>, offset: usize, path: &mut String) {
    match v {
        DeValue::Table(t) => {
            walk_table(t, offset, path);
        }
        DeValue::Array(a) => {
            walk_array(a, offset, path);
        }
        _ => {}
    }
}

fn walk_array(a: &[Spanned<DeValue<'_>>], offset: usize, path: &mut String) -> bool {
    for (i, v) in a.iter().enumerate() {
        let len = path.len();
        path.push_str(&format!("[{i}]"));
        if v.span().contains(&offset) {
            walk_value(v.get_ref(), offset, path);
            return true;
        }
        let found = match v.get_ref() {
            DeValue::Table(inner) => walk_table(inner, offset, path),
            _ => false,
        };
        if found {
            return true;
        }
        path.truncate(len);
    }
    false
}

/// The dotted path of the key or table header whose name ends at `end`, read from the
/// text alone (for errors raised before the document parsed, such as a duplicate key):
/// the key as written on its line (`loss.model`), under the nearest table header above.
pub fn key_path_at(text: &str, end: usize) -> Option<String> {
    let end = (0..=end.min(text.len()))
        .rev()
        .find(|&i| text.is_char_boundary(i))?;
    let line_start = text[..end].rfind('\n').map_or(0, |i| i + 1);
    let written = text[line_start..end].trim();
    let clean = |k: &str| -> String {
        k.split('.')
            .map(|p| p.trim().trim_matches(|c| c == '"' || c == '\''))
            .collect::<Vec<_>>()
            .join(".")
    };
    if let Some(header) = written.strip_prefix('[') {
        return Some(clean(header.trim_start_matches('[')));
    }
    let key = clean(written.split('=').next()?);
    let table = text[..line_start].lines().rev().find_map(|l| {
        let l = l.trim();
        l.starts_with('[')
            .then(|| clean(l.trim_matches(|c| c == '[' || c == ']')))
    });
    Some(match table {
        Some(t) if !t.is_empty() => format!("{t}.{key}"),
        _ => key,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "seed = 3\n[path]\nrtt_ms = 100\n[path.loss]\nmodel = \"drop-list\"\n[[path.loss.drops]]\nsegment = 4\n[[path.loss.drops]]\nseq = [1, 2]\n";

    #[test]
    fn line_col_counts_from_one() {
        assert_eq!(line_col("ab\ncd", 0), (1, 1));
        assert_eq!(line_col("ab\ncd", 4), (2, 2));
        assert_eq!(line_col("é\nx", 1), (1, 1));
    }

    #[test]
    fn span_of_finds_values_and_array_entries() {
        let doc = DeTable::parse(DOC).unwrap();
        let at = |p: &str| span_of(doc.get_ref(), p).map(|s| line_col(DOC, s.start));
        assert_eq!(at("seed"), Some((1, 8)));
        assert_eq!(at("path.rtt_ms"), Some((3, 10)));
        assert_eq!(at("path.loss.model"), Some((5, 9)));
        assert_eq!(at("path.loss.drops[1].seq"), Some((9, 7)));
        assert_eq!(at("path.loss.drops[0].segment"), Some((7, 11)));
        // Missing key: its table's header.
        assert_eq!(at("path.loss.p").map(|p| p.0), Some(4));
    }

    #[test]
    fn path_at_names_the_key() {
        let doc = DeTable::parse(DOC).unwrap();
        let off = |needle: &str| DOC.find(needle).unwrap();
        assert_eq!(
            path_at(doc.get_ref(), off("100")).as_deref(),
            Some("path.rtt_ms")
        );
        assert_eq!(
            path_at(doc.get_ref(), off("[1, 2]") + 1).as_deref(),
            Some("path.loss.drops[1].seq[0]")
        );
        assert_eq!(
            path_at(doc.get_ref(), off("segment")).as_deref(),
            Some("path.loss.drops[0].segment")
        );
    }
}

//! The scenario file's JSON Schema, for editors (e.g. VS Code's Even Better TOML or
//! taplo): generated from the parser's own structs ([`super::raw`]), with each key's
//! description and default taken from the annotated reference in [`crate::scenario`],
//! and the `[sender]` keys from the engine's axis table.

use super::raw::Raw;
use lossrec::config::AXES;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// `(table, key)` → the reference's comment for that key (`path`, `rtt_ms` → "base RTT
/// (default 100): ...").
fn descriptions() -> BTreeMap<(String, String), String> {
    let mut out = BTreeMap::new();
    let mut table = String::new();
    let mut last: Option<(String, String)> = None;
    for line in crate::scenario::reference().lines() {
        let t = line.trim_start();
        if let Some(h) = t.strip_prefix('[') {
            let name = h.trim_start_matches('[');
            table = name.split(']').next().unwrap_or("").trim().to_string();
            last = None;
            continue;
        }
        let body = t.trim_start_matches('#').trim_start();
        let (code, comment) = body.split_once('#').unwrap_or((body, ""));
        match code.split_once('=') {
            Some((k, _)) if !k.trim().is_empty() && !k.trim().contains(' ') => {
                let key = (table.clone(), k.trim().to_string());
                out.insert(key.clone(), comment.trim().to_string());
                last = Some(key);
            }
            // A comment-only line continues the previous key's description.
            _ if code.trim().is_empty() && !comment.trim().is_empty() => {
                if let Some(k) = &last {
                    let d = out.entry(k.clone()).or_default();
                    d.push(' ');
                    d.push_str(comment.trim());
                }
            }
            _ => last = None,
        }
    }
    out
}

/// Walks the schema's object properties, setting `description` from the reference.
fn describe(
    v: &mut Value,
    table: &str,
    defs: &Map<String, Value>,
    d: &BTreeMap<(String, String), String>,
) {
    let Some(props) = v.get_mut("properties").and_then(Value::as_object_mut) else {
        return;
    };
    for (k, p) in props.iter_mut() {
        if let Some(text) = d.get(&(table.to_string(), k.clone())) {
            if !text.is_empty() {
                p["description"] = Value::String(text.clone());
            }
        }
        let child = if table.is_empty() {
            k.clone()
        } else {
            format!("{table}.{k}")
        };
        if let Some(name) = reference_name(p) {
            if let Some(mut def) = defs.get(&name).cloned() {
                describe(&mut def, &child, defs, d);
                *p = merge_ref(p.clone(), def);
            }
        }
    }
}

/// The `$defs` name a property refers to (directly, through `anyOf`, or as array items).
fn reference_name(p: &Value) -> Option<String> {
    let r = p
        .get("$ref")
        .or_else(|| {
            p.get("anyOf")?
                .as_array()?
                .iter()
                .find_map(|x| x.get("$ref"))
        })
        .or_else(|| p.get("items")?.get("$ref"))?;
    r.as_str()?.rsplit('/').next().map(str::to_string)
}

/// Inlines a definition into the property (so each table's keys get their own text).
fn merge_ref(p: Value, def: Value) -> Value {
    let desc = p.get("description").cloned();
    let mut out = if p.get("items").is_some() {
        json!({"type": "array", "items": def})
    } else {
        def
    };
    if let Some(d) = desc {
        out["description"] = d;
    }
    out
}

/// The JSON Schema (draft 2020-12) of a scenario file.
pub fn json_schema() -> Value {
    let mut v = serde_json::to_value(schemars::schema_for!(Raw)).expect("a schema serialises");
    let defs = v
        .get("$defs")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    describe(&mut v, "", &defs, &descriptions());
    if let Some(o) = v.as_object_mut() {
        o.remove("$defs");
        o.insert("title".into(), json!("lossrec scenario"));
        o.insert(
            "description".into(),
            json!(
                "A lossrec scenario file (TOML). `lossrec scenario --defaults` explains every key."
            ),
        );
    }
    let mut sender = Map::new();
    sender.insert("preset".into(), json!({"type": "string", "description": "a named bundle of axis values (`lossrec presets`)"}));
    for a in AXES {
        sender.insert(
            (*a).into(),
            json!({"description": format!("engine axis `{a}` (`lossrec presets` lists values)")}),
        );
    }
    v["properties"]["sender"] = json!({
        "type": "object",
        "description": "the sender: a preset and any engine axis on top",
        "properties": sender,
        "additionalProperties": false,
    });
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_match_the_parser_and_carry_the_reference() {
        let s = json_schema();
        let path = &s["properties"]["path"]["properties"];
        assert!(path["rtt_ms"]["description"]
            .as_str()
            .unwrap()
            .contains("base RTT"));
        assert!(path["loss"]["properties"]["model"]["description"]
            .as_str()
            .unwrap()
            .contains("bernoulli"));
        assert_eq!(
            s["properties"]["path"]["additionalProperties"],
            json!(false)
        );
        assert!(s["properties"]["sender"]["properties"]["min_rto_ms"].is_object());
        assert!(s["properties"]["workload"]["properties"]["segments"].is_object());
    }
}

//! The schemas Python reads instead of re-listing them (issue 28 item 13): the fields of
//! the simulator's recovery episodes (`lossrec_sim::Recovery`, the `--json` object's
//! `recoveries[]`), in output order, with their kinds.
//!
//! The order and names come from `Recovery`'s own `Serialize` (`Recovery::default()` is
//! serialised and its keys read back in order), the kinds from its values: `int`, `float`
//! (also every `Option`, serialised `null` here: it may be missing, NaN in a DataFrame)
//! or `str` — the same vocabulary as `FlowResult::FIELDS`. Nothing lists the fields: a
//! field added to `Recovery` is in the schema at once.

use lossrec_sim::Recovery;
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::Value;

/// A JSON object's entries in the order they appear.
struct Ordered(Vec<(String, Value)>);

impl<'de> Deserialize<'de> for Ordered {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Entries;
        impl<'de> Visitor<'de> for Entries {
            type Value = Ordered;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Ordered, A::Error> {
                let mut out = Vec::new();
                while let Some(entry) = m.next_entry::<String, Value>()? {
                    out.push(entry);
                }
                Ok(Ordered(out))
            }
        }
        d.deserialize_map(Entries)
    }
}

/// The kind of a sample value: `int`, `float` (a float or a missing optional) or `str`.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::String(_) => "str",
        Value::Number(n) if n.is_u64() || n.is_i64() => "int",
        _ => "float",
    }
}

/// `Recovery`'s fields as `(name, kind)`, in the order `--json` writes them.
pub fn recovery_fields() -> Vec<(String, &'static str)> {
    let text = serde_json::to_string(&Recovery::default()).expect("a Recovery serialises");
    let Ordered(entries) = serde_json::from_str(&text).expect("it reads back as an object");
    entries.into_iter().map(|(k, v)| (k, kind(&v))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recovery_fields_follow_the_struct() {
        let f = recovery_fields();
        let names: Vec<&str> = f.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(&names[..4], ["kind", "flow", "id", "start_ms"]);
        assert_eq!(names.last(), Some(&"lost_retransmits"));
        assert_eq!(f.len(), 18);
        let k = |n: &str| f.iter().find(|(x, _)| x == n).map(|x| x.1);
        assert_eq!(k("kind"), Some("str"));
        assert_eq!(k("backoffs"), Some("int"));
        assert_eq!(k("start_ms"), Some("float"));
        assert_eq!(k("cwnd_at_end"), Some("float"), "optional: may be missing");
    }
}

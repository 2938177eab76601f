//! Evaluating `%{ … }%` expressions with Python's semantics for the supported subset.

use crate::ast::{BinOp, CmpOp, Expr};
use crate::expr::CA_STATES;

/// A value during evaluation (Python's int, float, bool, str).
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(String),
    /// The right operand of `%` string formatting.
    Tuple(Vec<Value>),
}

impl core::fmt::Display for Value {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Value::Int(v) => write!(f, "{v}"),
            Value::Float(v) => write!(f, "{v}"),
            Value::Bool(true) => f.write_str("True"),
            Value::Bool(false) => f.write_str("False"),
            Value::Str(s) => f.write_str(s),
            Value::Tuple(v) => {
                let parts: Vec<String> = v.iter().map(|x| x.to_string()).collect();
                write!(f, "({})", parts.join(", "))
            }
        }
    }
}

impl Value {
    fn num(&self) -> Result<f64, String> {
        match self {
            Value::Int(v) => Ok(*v as f64),
            Value::Float(v) => Ok(*v),
            Value::Bool(b) => Ok(f64::from(u8::from(*b))),
            Value::Str(s) => Err(format!("`{s}` is a string, not a number")),
            Value::Tuple(_) => Err("a tuple is not a number".into()),
        }
    }
    fn int(&self) -> Option<i64> {
        match self {
            Value::Int(v) => Some(*v),
            Value::Bool(b) => Some(i64::from(*b)),
            _ => None,
        }
    }
    pub fn truthy(&self) -> bool {
        match self {
            Value::Int(v) => *v != 0,
            Value::Float(v) => *v != 0.0,
            Value::Bool(b) => *b,
            Value::Str(s) => !s.is_empty(),
            Value::Tuple(v) => !v.is_empty(),
        }
    }
}

/// Evaluates `e`, looking names up with `lookup` (fields, counters, constants, variables).
pub fn eval(e: &Expr, lookup: &dyn Fn(&str) -> Option<Value>) -> Result<Value, String> {
    Ok(match e {
        Expr::Int(v) => Value::Int(*v),
        Expr::Float(v) => Value::Float(*v),
        Expr::Str(s) => Value::Str(s.clone()),
        Expr::Name(n) => match n.as_str() {
            "True" => Value::Bool(true),
            "False" => Value::Bool(false),
            _ => lookup(n).ok_or_else(|| format!("`{n}` has no value"))?,
        },
        Expr::Neg(x) => match eval(x, lookup)? {
            Value::Float(v) => Value::Float(-v),
            v => Value::Int(v.int().ok_or("cannot negate a string")?.wrapping_neg()),
        },
        Expr::Not(x) => Value::Bool(!eval(x, lookup)?.truthy()),
        Expr::Invert(x) => Value::Int(!eval(x, lookup)?.int().ok_or("`~` needs an integer")?),
        Expr::And(a, b) => {
            let a = eval(a, lookup)?;
            if a.truthy() {
                eval(b, lookup)?
            } else {
                a
            }
        }
        Expr::Or(a, b) => {
            let a = eval(a, lookup)?;
            if a.truthy() {
                a
            } else {
                eval(b, lookup)?
            }
        }
        Expr::Binary(op, a, b) => binary(*op, eval(a, lookup)?, eval(b, lookup)?)?,
        Expr::Tuple(items) => Value::Tuple(
            items
                .iter()
                .map(|x| eval(x, lookup))
                .collect::<Result<_, _>>()?,
        ),
        Expr::Compare(first, rest) => {
            let mut left = eval(first, lookup)?;
            for (op, e) in rest {
                let right = eval(e, lookup)?;
                let ok = match (&left, &right) {
                    (Value::Str(a), Value::Str(b)) => compare(*op, a.cmp(b)),
                    _ => {
                        let (a, b) = (left.num()?, right.num()?);
                        match a.partial_cmp(&b) {
                            Some(o) => compare(*op, o),
                            None => *op == CmpOp::Ne,
                        }
                    }
                };
                if !ok {
                    return Ok(Value::Bool(false));
                }
                left = right;
            }
            Value::Bool(true)
        }
        Expr::Call(f, args) => {
            let vals = args
                .iter()
                .map(|a| eval(a, lookup))
                .collect::<Result<Vec<_>, _>>()?;
            match f.as_str() {
                "abs" => match &vals[0] {
                    Value::Float(v) => Value::Float(v.abs()),
                    v => Value::Int(v.int().ok_or("abs of a string")?.wrapping_abs()),
                },
                _ => {
                    let mut best = vals[0].clone();
                    for v in &vals[1..] {
                        let better = if f == "min" {
                            v.num()? < best.num()?
                        } else {
                            v.num()? > best.num()?
                        };
                        if better {
                            best = v.clone();
                        }
                    }
                    best
                }
            }
        }
    })
}

fn compare(op: CmpOp, o: core::cmp::Ordering) -> bool {
    use core::cmp::Ordering::*;
    match op {
        CmpOp::Eq => o == Equal,
        CmpOp::Ne => o != Equal,
        CmpOp::Lt => o == Less,
        CmpOp::Le => o != Greater,
        CmpOp::Gt => o == Greater,
        CmpOp::Ge => o != Less,
    }
}

/// Python's `'…%d…' % args` for `%d %i %s %r %x %f %%`.
fn format(fmt: &str, args: Value) -> Result<Value, String> {
    let mut args = match args {
        Value::Tuple(v) => v,
        v => vec![v],
    }
    .into_iter();
    let mut out = String::new();
    let mut chars = fmt.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let spec = chars.next().ok_or("incomplete format")?;
        if spec == '%' {
            out.push('%');
            continue;
        }
        let v = args
            .next()
            .ok_or("not enough arguments for format string")?;
        match spec {
            'd' | 'i' => {
                out += &v.int().map_or_else(
                    || v.num().map(|x| (x as i64).to_string()),
                    |i| Ok(i.to_string()),
                )?
            }
            'x' => out += &format!("{:x}", v.int().ok_or("%x needs an integer")?),
            'f' => out += &format!("{:.6}", v.num()?),
            's' | 'r' => out += &v.to_string(),
            other => return Err(format!("unsupported format `%{other}`")),
        }
    }
    if args.next().is_some() {
        return Err("not all arguments converted during string formatting".into());
    }
    Ok(Value::Str(out))
}

/// `a OP b` with Python's semantics (also for augmented assignments).
pub fn apply(op: BinOp, a: Value, b: Value) -> Result<Value, String> {
    binary(op, a, b)
}

fn binary(op: BinOp, a: Value, b: Value) -> Result<Value, String> {
    if let (BinOp::Mod, Value::Str(f)) = (op, &a) {
        return format(f, b);
    }
    if let (Some(x), Some(y), false) = (a.int(), b.int(), op == BinOp::Div) {
        let v = match op {
            BinOp::BitAnd => Some(x & y),
            BinOp::BitOr => Some(x | y),
            BinOp::BitXor => Some(x ^ y),
            BinOp::Shl => u32::try_from(y).ok().and_then(|s| x.checked_shl(s)),
            BinOp::Shr => u32::try_from(y).ok().map(|s| x >> s.min(63)),
            BinOp::Add => x.checked_add(y),
            BinOp::Sub => x.checked_sub(y),
            BinOp::Mul => x.checked_mul(y),
            BinOp::FloorDiv | BinOp::Mod if y == 0 => return Err("division by zero".into()),
            BinOp::FloorDiv => Some(x.div_euclid(y) - i64::from(y < 0 && x.rem_euclid(y) != 0)),
            BinOp::Mod => {
                Some(x - y * (x.div_euclid(y) - i64::from(y < 0 && x.rem_euclid(y) != 0)))
            }
            BinOp::Div => None,
        };
        return v.map(Value::Int).ok_or_else(|| "integer overflow".into());
    }
    if matches!(
        op,
        BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor | BinOp::Shl | BinOp::Shr
    ) {
        return Err("bitwise operators need integers".into());
    }
    let (x, y) = (a.num()?, b.num()?);
    if y == 0.0 && matches!(op, BinOp::Div | BinOp::FloorDiv | BinOp::Mod) {
        return Err("division by zero".into());
    }
    Ok(Value::Float(match op {
        BinOp::Add => x + y,
        BinOp::Sub => x - y,
        BinOp::Mul => x * y,
        BinOp::Div => x / y,
        BinOp::FloorDiv => (x / y).floor(),
        BinOp::Mod => x - y * (x / y).floor(),
        _ => unreachable!("bitwise operators returned above"),
    }))
}

/// Every name an expression reads, in first-use order (for failure messages).
pub fn names(e: &Expr, out: &mut Vec<String>) {
    match e {
        Expr::Name(n) => {
            let constant =
                matches!(n.as_str(), "True" | "False") || CA_STATES.iter().any(|(c, _)| c == n);
            if !out.contains(n) && !constant {
                out.push(n.clone())
            }
        }
        Expr::Neg(x) | Expr::Not(x) | Expr::Invert(x) => names(x, out),
        Expr::Binary(_, a, b) | Expr::And(a, b) | Expr::Or(a, b) => {
            names(a, out);
            names(b, out);
        }
        Expr::Compare(a, rest) => {
            names(a, out);
            for (_, x) in rest {
                names(x, out);
            }
        }
        Expr::Call(_, args) | Expr::Tuple(args) => args.iter().for_each(|a| names(a, out)),
        Expr::Int(_) | Expr::Float(_) | Expr::Str(_) => {}
    }
}

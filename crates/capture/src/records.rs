//! The reconstructed records of each connection as plain data, for `lossrec replay`
//! (python/lossrec/replay_capture.py), which infers the path from them: every data transmission
//! and every ACK the sender received, in stream offsets, with the handshake's times.

use std::net::SocketAddr;
use std::path::Path;

use serde_json::{json, Value};

use crate::conn::{Reconstructor, Record};
use crate::explain::{flow_matches, Error};
use crate::index::scan;
use crate::index::{each_packet, Slots};
use crate::source::FrameSource;

struct Slot {
    label: String,
    rec: Reconstructor,
    syn: Option<u64>,
    synack: Option<u64>,
    /// The opener's first packet after the SYN-ACK (the handshake's third).
    third: Option<u64>,
    opener: Option<SocketAddr>,
    data: Vec<Value>,
    acks: Vec<Value>,
    drops: Vec<Value>,
}

/// One JSON object per connection (or the one `flow` picks): `flow`, `mss`, `syn_ns`,
/// `synack_ns`, `third_ns` (the opener's next packet), `data` as `[ts_ns, start, end, tsval, fin]` rows, `acks` as
/// `[ts_ns, cumulative, [[start, end]…], tsval, tsecr, window, fin]` rows (SACK blocks in
/// wire order, so a DSACK is the first) and `capture_drops` as `[ts_ns, start, end]`.
/// Holds every record in memory: replay is for one connection's worth of packets.
pub fn records_path(path: &Path, flow: Option<&str>) -> Result<Vec<Value>, Error> {
    let index = scan(FrameSource::open(path).map_err(Error::Source)?);
    let mut slots: Vec<Slot> = Vec::new();
    let mut by_key = Slots::new();
    for c in &index.conns {
        if !flow.is_none_or(|f| flow_matches(f, c)) {
            continue;
        }
        let (s, r) = c.direction();
        by_key.insert((c.a, c.b), slots.len());
        slots.push(Slot {
            label: c.label(),
            rec: Reconstructor::new(s, r, u64::from(c.max_payload.clamp(1, 1448))),
            syn: None,
            synack: None,
            third: None,
            opener: c.syn_from,
            data: Vec::new(),
            acks: Vec::new(),
            drops: Vec::new(),
        });
    }
    if let (Some(f), true) = (flow, slots.is_empty()) {
        return Err(Error::NoSuchFlow {
            flow: f.to_string(),
            present: index.conns.iter().map(|c| c.label()).collect(),
        });
    }
    let mut source = FrameSource::open(path).map_err(Error::Source)?;
    each_packet(&mut source, &by_key, |si, p| {
        let slot = &mut slots[si];
        if slot.synack.is_some() && slot.third.is_none() && Some(p.src) == slot.opener {
            slot.third = Some(p.ts_ns);
        }
        let recs: Vec<Record> = slot.rec.push(p).collect();
        for r in recs {
            push(slot, r);
        }
    });
    Ok(slots.into_iter().map(to_json).collect())
}

fn push(slot: &mut Slot, r: Record) {
    match r {
        Record::Syn(s) => {
            slot.syn.get_or_insert(s.ts_ns);
        }
        Record::SynAck(s) => {
            slot.synack.get_or_insert(s.ts_ns);
        }
        Record::Data(t) => slot
            .data
            .push(json!([t.ts_ns, t.start, t.end, t.tsval, t.fin])),
        Record::Ack(a) => {
            let sack: Vec<[u64; 2]> = a.sack_blocks().iter().map(|&(s, e)| [s, e]).collect();
            let (tsval, tsecr) = a.ts.map_or((None, None), |(v, e)| (Some(v), Some(e)));
            slot.acks.push(json!([
                a.ts_ns,
                a.cumulative,
                sack,
                tsval,
                tsecr,
                a.window,
                a.fin
            ]));
        }
        Record::CaptureDrop { ts_ns, start, end } => slot.drops.push(json!([ts_ns, start, end])),
    }
}

fn to_json(s: Slot) -> Value {
    json!({
        "flow": s.label,
        "sender": s.rec.sender.to_string(),
        "receiver": s.rec.receiver.to_string(),
        "mss": s.rec.mss,
        "syn_ns": s.syn,
        "synack_ns": s.synack,
        "third_ns": s.third,
        "data": s.data,
        "acks": s.acks,
        "capture_drops": s.drops,
    })
}

//! A whole transfer between a client [`Endpoint`] (the engine's sender) and a server
//! [`Endpoint`] (the engine's receiver) over real encoded segments, in virtual time, with
//! the driver contract (one segment in, then drain) and a constant one-way delay: the
//! handshake, the data with one segment lost, its repair, both FINs.

use std::collections::BTreeMap;
use std::net::{Ipv4Addr, SocketAddrV4};

use lossrec::{Config, Duration, Instant, Receiver, ReceiverConfig, Sender};
use lossrec_tcp::{Endpoint, EndpointConfig};
use lossrec_wire::decode_ipv4;

const A: SocketAddrV4 = SocketAddrV4::new(Ipv4Addr::new(10, 0, 0, 1), 40_000);
const B: SocketAddrV4 = SocketAddrV4::new(Ipv4Addr::new(10, 0, 0, 2), 80);
const ONE_WAY: Duration = Duration::from_millis(20);

/// Packets in flight: (arrival ns, order) → (to the server?, bytes).
type Flight = BTreeMap<(u64, u64), (bool, Vec<u8>)>;

fn drain_client(c: &mut Endpoint, now: Instant, fl: &mut Flight, n: &mut u64, drop: &mut Vec<u64>) {
    while let Some(tx) = c.sender.as_mut().unwrap().poll_transmit(now) {
        let mut b = Vec::new();
        c.encode_transmit(now, &tx, &mut b);
        *n += 1;
        // The data segment starting at offset 5 * 1448 is lost once.
        if !tx.range.is_empty() && tx.range.start == 5 * 1448 && drop.pop().is_some() {
            continue;
        }
        fl.insert(((now + ONE_WAY).as_nanos(), *n), (true, b));
    }
}

#[test]
fn a_transfer_with_one_loss_completes_over_real_segments() {
    let t0 = Instant::from_millis(0);
    let mut cfg = Config::preset("linux").unwrap();
    cfg.timestamps = true;
    let ep = EndpointConfig::default();
    let mut c = Endpoint::client(Sender::new(cfg, t0).unwrap(), ep, A, B, 0xffff_ff00);
    let rcfg = ReceiverConfig::default();
    let mut s = Endpoint::server(Receiver::new(rcfg, t0), ep, B, A, 77);
    let bytes = 40 * 1448;
    c.sender.as_mut().unwrap().write(t0, bytes);
    c.sender.as_mut().unwrap().close(t0);
    let (mut fl, mut n, mut drop) = (Flight::new(), 0u64, vec![1]);
    drain_client(&mut c, t0, &mut fl, &mut n, &mut drop);
    let mut now = t0;
    for _ in 0..10_000 {
        let timers = [
            c.sender.as_ref().unwrap().poll_timeout(),
            s.receiver.as_ref().unwrap().poll_timeout(),
        ];
        let next_pkt = fl.keys().next().map(|k| Instant::from_nanos(k.0));
        let Some(t) = timers.into_iter().chain([next_pkt]).flatten().min() else {
            break;
        };
        now = t;
        if next_pkt == Some(t) {
            let (_, (to_server, pkt)) = fl.pop_first().unwrap();
            let seg = decode_ipv4(&pkt).unwrap();
            if to_server {
                s.input(now, &seg);
            } else {
                let got = c.input(now, &seg);
                if got.fin {
                    let mut b = Vec::new();
                    c.ack_now(now, &mut b);
                    n += 1;
                    fl.insert(((now + ONE_WAY).as_nanos(), n), (true, b));
                }
            }
        } else if c.sender.as_ref().unwrap().poll_timeout() == Some(t) {
            c.sender.as_mut().unwrap().on_timeout(now);
        } else {
            s.receiver.as_mut().unwrap().on_timeout(now);
        }
        // Drain both (the driver contract): what the input allowed, before the next one.
        drain_client(&mut c, now, &mut fl, &mut n, &mut drop);
        let mut acks = Vec::new();
        s.poll_acks(now, &mut acks);
        for b in acks {
            n += 1;
            fl.insert(((now + ONE_WAY).as_nanos(), n), (false, b));
        }
        if c.sender.as_ref().unwrap().is_finished() && fl.is_empty() {
            break;
        }
    }
    let r = s.receiver.as_ref().unwrap();
    assert_eq!(r.delivered(), bytes, "at {now:?}");
    assert!(r.fin_received());
    let snd = c.sender.as_ref().unwrap();
    assert!(snd.is_finished(), "at {now:?}");
    assert_eq!(snd.stats().retrans_segs, 1, "{:?}", snd.stats());
    // The timestamps ticked in milliseconds: TS.Recent on each side is a millisecond
    // count of the other's clock (+1), well under the run's length in microseconds.
    let end_ms = now.as_millis() as u32 + 1;
    let (rc, rs) = (
        c.timestamps().recent().unwrap(),
        s.timestamps().recent().unwrap(),
    );
    assert!(
        rc <= end_ms && rs <= end_ms && rs > 40,
        "{rc} {rs} at {now:?}"
    );
    assert_eq!(
        c.accept_stats().out_of_window + s.accept_stats().out_of_window,
        0
    );
}

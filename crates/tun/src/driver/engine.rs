//! The engine's endpoints inside the real-time loop, held to the engine's driver contract
//! (`lossrec` crate doc): one input at a time — an ACK, a timeout, a segment for the engine
//! receiver — and what it makes the endpoint send goes onto the path before the next.

use std::net::SocketAddrV4;

use lossrec_wire::decode_ipv4;

use super::{src_ip, thread_cpu_ns, Driver};
use crate::engine_flows::{after_input, engine_step, timer_before};
use crate::engine_receiver::EngineReceiver;
use crate::path::Dir;
use crate::topology::{ENGINE_SERVER, PORT};

impl Driver<'_> {
    /// The engine sender's timeout, when it fell due before `at`, with what it sends
    /// (the driver contract: inputs in the order they became due).
    pub(super) fn engine_timer_before(&mut self, now: u64, at: u64) {
        if let Some(e) = self.engine.as_mut() {
            let t0 = thread_cpu_ns();
            let trace = self.trace.as_mut();
            timer_before(
                e,
                at,
                now,
                &mut self.lateness,
                &self.path,
                trace,
                &mut self.out,
            );
            e.cpu_ns += thread_cpu_ns() - t0;
        }
        self.flush_out(now);
    }

    /// One ACK to the engine sender, then what it sends in answer, onto the path before
    /// the next packet is delivered: the driver contract (`lossrec` crate doc), as Linux
    /// runs `tcp_ack` then `tcp_data_snd_check` per segment. Draining a burst of ACKs
    /// first and polling once after them sent the hole's retransmission before the new
    /// data the burst's leading cumulative ACKs allowed (issue 27).
    pub(super) fn deliver_to_engine_sender(&mut self, now: u64, pkt: &[u8]) {
        let Ok(seg) = decode_ipv4(pkt) else { return };
        let Some(e) = self.engine.as_mut() else {
            return;
        };
        let Some((s, _)) = e.current.as_mut() else {
            return;
        };
        if seg.dst != s.local() {
            return; // an earlier flow's late segment
        }
        let t0 = thread_cpu_ns();
        let got = s.input(Self::inst(now), &seg);
        if let (Some(ack), Some(t)) = (&got.ack, self.trace.as_mut()) {
            t.ack(now, e.next as u32 - 1, ack, Some(s.sender()));
        }
        if got.fin {
            let mut b = Vec::new();
            s.fin_ack(Self::inst(now), &mut b);
            self.out.push(b);
        }
        s.take_replies(&mut self.out);
        after_input(e, now, &self.path, self.trace.as_mut(), &mut self.out);
        e.cpu_ns += thread_cpu_ns() - t0;
        e.packets += 1;
        self.flush_out(now);
    }

    pub(super) fn deliver_to_engine_receiver(&mut self, now: u64, pkt: &[u8]) {
        let Ok(seg) = decode_ipv4(pkt) else { return };
        let i = match self.receivers.iter().position(|r| r.peer() == seg.src) {
            Some(i) => i,
            None if seg.flags.contains(lossrec_wire::TcpFlags::SYN) => {
                let local = SocketAddrV4::new(ENGINE_SERVER, PORT);
                let isn = lossrec_sim::rng::mix64(self.receivers.len() as u64 ^ 0x5eed) as u32;
                let cfg = self.rcv_cfg.clone();
                self.receivers.push(EngineReceiver::new(
                    cfg,
                    Self::inst(now),
                    local,
                    seg.src,
                    isn,
                    self.endpoint,
                ));
                self.receivers.len() - 1
            }
            None => return,
        };
        let r = &mut self.receivers[i];
        r.input(Self::inst(now), &seg);
        r.output(Self::inst(now), &mut self.out);
    }

    /// Engine timers, the next flow, and everything the engine wants to send.
    pub(super) fn engine_turn(&mut self, now: u64) {
        let t = Self::inst(now);
        for r in &mut self.receivers {
            if r.receiver()
                .poll_timeout()
                .is_some_and(|d| d.as_nanos() <= now)
            {
                self.lateness.record(
                    r.receiver().poll_timeout().map_or(now, |d| d.as_nanos()),
                    now,
                );
                r.receiver_mut().on_timeout(t);
                r.output(t, &mut self.out);
            }
        }
        if let Some(e) = self.engine.as_mut() {
            let t0 = thread_cpu_ns();
            engine_step(
                e,
                &mut self.apps,
                now,
                &mut self.lateness,
                &self.path,
                self.trace.as_mut(),
                &mut self.out,
            );
            e.cpu_ns += thread_cpu_ns() - t0;
        }
        self.flush_out(now);
    }

    /// Offers every packet the endpoints produced to the path, in the order produced.
    pub(super) fn flush_out(&mut self, now: u64) {
        let out = std::mem::take(&mut self.out);
        for pkt in out {
            let dir = match src_ip(&pkt) {
                Some(ip) if ip == ENGINE_SERVER => Dir::Ack,
                _ => Dir::Data,
            };
            self.offer(now, dir, pkt);
        }
    }
}

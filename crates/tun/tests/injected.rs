//! Forged segments on a live wire run: an off-path attacker who knows the 4-tuple and the
//! current sequence numbers (it sniffs them on the run's own TUN device) writes a SYN, a
//! SYN-ACK with another ISN, two RSTs (outside the window, and in it but off RCV.NXT) and
//! bogus ACKs with a raw socket inside the Linux endpoint's namespace, posing as the Linux
//! endpoint. They reach the engine the way the real peer's segments do (Linux's routing →
//! the TUN device → the path emulator). The transfer must complete with the same bytes,
//! and the engine's acceptance counters must show every forged segment.
//!
//! The workload pauses between two writes so that the sequence numbers the attacker reads
//! stay put while it forges (RCV.NXT exact, so "in the window but not at RCV.NXT" is
//! meant, not guessed). Needs root and /dev/net/tun: without them the test says so and
//! returns. Each run takes about 2.5 s; the namespaces are the run's own and removed by it.

use std::mem::{size_of, zeroed};
use std::net::{Ipv4Addr, SocketAddrV4};
use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use lossrec_sim::Scenario;
use lossrec_tcp::accept::AcceptStats;
use lossrec_tun::topology::{ENGINE_CLIENT, ENGINE_SERVER, LINUX_CLIENT, LINUX_SERVER};
use lossrec_tun::{netns, run, Side, WireOptions};
use lossrec_wire::{decode_ipv4, encode_ipv4, TcpFlags, TcpSegment};

const MSS: u64 = 1448;

/// Nothing on the device for this long: the first write is delivered and acknowledged.
const QUIET: Duration = Duration::from_millis(300);

/// Where the attacker stands: the namespace and device of the Linux endpoint it poses
/// as, its address, and the engine endpoint's.
struct Post {
    tag: &'static str,
    linux: Ipv4Addr,
    engine: Ipv4Addr,
}

/// The attacker's view, read from the last segment the Linux endpoint sent the engine
/// before the pause: the 4-tuple, the engine's RCV.NXT and its SND.NXT.
#[derive(Copy, Clone, Debug)]
struct Seen {
    from: SocketAddrV4,
    to: SocketAddrV4,
    rcv_nxt: u32,
    snd_nxt: u32,
}

fn ours_alive() -> Vec<String> {
    let me = std::process::id();
    netns::ours()
        .into_iter()
        .filter(|(_, pid)| *pid == me)
        .map(|(n, _)| n)
        .collect()
}

fn check(r: libc::c_int, what: &str) -> Result<libc::c_int, String> {
    if r < 0 {
        return Err(format!("{what}: {}", std::io::Error::last_os_error()));
    }
    Ok(r)
}

/// Enters the run's namespace `tag` once it and its device exist; returns the device's
/// index.
fn enter(tag: &str, until: Instant) -> Result<u32, String> {
    let name = format!("{}{}-{tag}", netns::PREFIX, std::process::id());
    let dev = netns::ifname(tag).map_err(|e| e.to_string())?;
    while Instant::now() < until {
        if Path::new("/run/netns").join(&name).exists() && netns::enter(&name).is_ok() {
            // SAFETY: a NUL-terminated name.
            let idx = unsafe { libc::if_nametoindex(dev.as_ptr()) };
            if idx != 0 {
                return Ok(idx);
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    Err(format!("{name} or its device never appeared"))
}

/// A packet socket on the device: every packet it carries, both ways, as IPv4.
fn sniffer(ifindex: u32) -> Result<libc::c_int, String> {
    let proto = (libc::ETH_P_ALL as u16).to_be();
    // SAFETY: plain socket calls on values we own.
    unsafe {
        let fd = check(
            libc::socket(libc::AF_PACKET, libc::SOCK_DGRAM, i32::from(proto)),
            "packet socket",
        )?;
        let mut sll: libc::sockaddr_ll = zeroed();
        sll.sll_family = libc::AF_PACKET as u16;
        sll.sll_protocol = proto;
        sll.sll_ifindex = ifindex as i32;
        check(
            libc::bind(
                fd,
                &sll as *const _ as *const libc::sockaddr,
                size_of::<libc::sockaddr_ll>() as u32,
            ),
            "bind",
        )?;
        let tv = libc::timeval {
            tv_sec: 0,
            tv_usec: 20_000,
        };
        check(
            libc::setsockopt(
                fd,
                libc::SOL_SOCKET,
                libc::SO_RCVTIMEO,
                &tv as *const _ as *const libc::c_void,
                size_of::<libc::timeval>() as u32,
            ),
            "SO_RCVTIMEO",
        )?;
        Ok(fd)
    }
}

/// Watches the device until the connection has been established and then quiet for
/// [`QUIET`]; returns what the Linux endpoint last told the engine.
fn watch(fd: libc::c_int, post: &Post, until: Instant) -> Result<Seen, String> {
    let mut buf = vec![0u8; 65_536];
    let (mut seen, mut last) = (None, Instant::now());
    while Instant::now() < until {
        // SAFETY: reads into our buffer.
        let n = unsafe { libc::recv(fd, buf.as_mut_ptr() as *mut libc::c_void, buf.len(), 0) };
        if n > 0 {
            last = Instant::now();
            let Ok(s) = decode_ipv4(&buf[..n as usize]) else {
                continue;
            };
            let syn = s.flags.contains(TcpFlags::SYN);
            if let (true, false, Some(ack)) = (*s.src.ip() == post.linux, syn, s.ack) {
                let fin = u32::from(s.flags.contains(TcpFlags::FIN));
                seen = Some(Seen {
                    from: s.src,
                    to: s.dst,
                    rcv_nxt: s.seq.wrapping_add(s.payload.len() as u32 + fin),
                    snd_nxt: ack,
                });
            }
        } else if let (Some(s), true) = (seen, last.elapsed() >= QUIET) {
            return Ok(s);
        }
    }
    Err("the connection never went quiet".into())
}

/// The forged segments, in the order sent; how many the engine challenges.
fn forgeries(v: &Seen) -> Vec<TcpSegment<'static>> {
    let other_isn = v.rcv_nxt.wrapping_add(0x4000_3039);
    let far = v.rcv_nxt.wrapping_add(1 << 31);
    let mk = |seq: u32, ack: Option<u32>, flags: TcpFlags| {
        let mut s = TcpSegment::new(v.from, v.to, seq);
        s.ack = ack;
        s.flags = flags;
        s.window = 65_535;
        s
    };
    vec![
        mk(other_isn, None, TcpFlags::SYN),
        mk(other_isn, Some(v.snd_nxt), TcpFlags::SYN),
        mk(far, Some(v.snd_nxt), TcpFlags::RST),
        mk(v.rcv_nxt.wrapping_add(1), Some(v.snd_nxt), TcpFlags::RST),
        mk(
            v.rcv_nxt,
            Some(v.snd_nxt.wrapping_add(1 << 30)),
            TcpFlags::empty(),
        ),
        mk(
            v.rcv_nxt,
            Some(v.snd_nxt.wrapping_sub(1 << 30)),
            TcpFlags::empty(),
        ),
        mk(far, Some(v.snd_nxt), TcpFlags::empty()),
    ]
}

/// Writes `segs` with a raw IPv4 socket (IP_HDRINCL: the header is ours, source
/// included) into the calling thread's namespace, whose routes lead to the engine
/// through the TUN device.
fn inject(segs: &[TcpSegment<'_>]) -> Result<usize, String> {
    // SAFETY: plain socket calls on values we own.
    unsafe {
        let fd = check(
            libc::socket(libc::AF_INET, libc::SOCK_RAW, libc::IPPROTO_RAW),
            "raw socket",
        )?;
        for s in segs {
            let pkt = encode_ipv4(s).map_err(|e| e.to_string())?;
            let mut to: libc::sockaddr_in = zeroed();
            to.sin_family = libc::AF_INET as u16;
            to.sin_addr.s_addr = u32::from(*s.dst.ip()).to_be();
            let r = libc::sendto(
                fd,
                pkt.as_ptr() as *const libc::c_void,
                pkt.len(),
                0,
                &to as *const _ as *const libc::sockaddr,
                size_of::<libc::sockaddr_in>() as u32,
            );
            if let Err(e) = check(r as libc::c_int, "sendto") {
                libc::close(fd);
                return Err(e);
            }
        }
        libc::close(fd);
        Ok(segs.len())
    }
}

/// The attacker's thread: waits for the pause, forges, reports what it saw.
fn attacker(post: Post) -> Result<(Seen, usize), String> {
    let until = Instant::now() + Duration::from_secs(10);
    let idx = enter(post.tag, until)?;
    let fd = sniffer(idx)?;
    let seen = watch(fd, &post, until);
    // SAFETY: our descriptor.
    unsafe { libc::close(fd) };
    let seen = seen?;
    assert_eq!(*seen.to.ip(), post.engine);
    Ok((seen, inject(&forgeries(&seen))?))
}

/// 30 segments, a 2 s pause (the attacker's window), 10 more; at most 10 s.
fn scenario() -> Scenario {
    Scenario::from_toml_str(
        &format!(
            "max_time_s = 10\n[path]\nrtt_ms = 40\nrate_mbps = 100\n[sender]\n\
             preset = \"linux\"\n[workload]\nkind = \"writes\"\n\
             writes = [[0, {}], [2000, {}]]\n",
            30 * MSS,
            10 * MSS
        ),
        "<injected>",
    )
    .unwrap()
}

fn attacked_run(sender: Side, receiver: Side, post: Post) -> (lossrec_tun::WireOutput, Seen) {
    let (tx, rx) = mpsc::channel();
    let t = std::thread::spawn(move || {
        let _ = tx.send(attacker(post));
    });
    let opts = WireOptions {
        sender,
        receiver,
        ..WireOptions::default()
    };
    let out = run(&scenario(), &opts).unwrap();
    t.join().unwrap();
    let (seen, n) = rx.recv().unwrap().unwrap();
    assert_eq!(n, 7);
    assert!(
        ours_alive().is_empty(),
        "namespaces left: {:?}",
        ours_alive()
    );
    eprintln!(
        "{sender:?}→{receiver:?} attacked at {seen:?}: {}",
        out.to_json()
    );
    (out, seen)
}

fn assert_unharmed(out: &lossrec_tun::WireOutput) {
    assert!(!out.time_limit_hit, "{out:?}");
    assert_eq!(out.unfinished_flows, 0);
    assert_eq!(out.flows.len(), 1);
    assert_eq!(out.flows[0].bytes, 40 * MSS);
    let a: &AcceptStats = &out.acceptance;
    assert_eq!(a.syn_challenge, 2, "{a:?}");
    assert_eq!((a.rst_out_of_window, a.rst_in_window), (1, 1), "{a:?}");
    assert_eq!((a.ack_unsent, a.ack_too_old), (1, 1), "{a:?}");
    assert_eq!(a.out_of_window, 1, "{a:?}");
    assert_eq!(a.resets, 0, "{a:?}");
    // Two SYNs, the RST in the window and the old ACK are challenged; within 500 ms the
    // first goes and the rest are withheld (Linux `__tcp_oow_rate_limited`).
    assert_eq!((a.challenge_acks, a.challenge_skipped), (1, 3), "{a:?}");
    assert_eq!(a.seq_skipped, 1, "{a:?}");
}

#[test]
fn forged_segments_change_nothing_on_a_live_run() {
    if let Some(why) = netns::unavailable() {
        eprintln!("SKIPPED (wire tests): {why}");
        return;
    }
    // The engine sender against Linux's receiver: the attacker poses as the server.
    let (out, seen) = attacked_run(
        Side::Engine,
        Side::Linux,
        Post {
            tag: "r",
            linux: LINUX_SERVER,
            engine: ENGINE_CLIENT,
        },
    );
    assert_eq!(*seen.from.ip(), LINUX_SERVER);
    assert_unharmed(&out);
    // Linux's sender against the engine's receiver: the attacker poses as the client,
    // and the path keeps its forged SYN on the one connection.
    let (out, seen) = attacked_run(
        Side::Linux,
        Side::Engine,
        Post {
            tag: "s",
            linux: LINUX_CLIENT,
            engine: ENGINE_SERVER,
        },
    );
    assert_eq!(*seen.from.ip(), LINUX_CLIENT);
    assert_unharmed(&out);
    assert_eq!(out.path.syns_on_open_connections, 1);
}

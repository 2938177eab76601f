//! The namespaces, TUN devices, addresses and Linux endpoints of one wire run.
//!
//! ```text
//!  ns lossrec-<pid>-s                 lossrec process                 ns lossrec-<pid>-r
//!  Linux client 10.9.0.1 ─ lr<pid>s ─┐  ┌─ emulator ─┐  ┌─ lr<pid>r ─ Linux server 10.9.0.2:5001
//!                                    └──┤ data → ─── ├──┘
//!      engine sender 10.9.0.3 ──────────┤ ← ACKs ─── ├───────── engine receiver 10.9.0.4:5001
//!                                       └────────────┘
//! ```
//!
//! All addresses are private and exist only inside the two namespaces (10.9.0.0/24 is
//! routed through each namespace's TUN device); the engine's endpoints have no device: the
//! emulator hands them their packets directly.

use std::io;
use std::net::{Ipv4Addr, SocketAddrV4};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::thread::JoinHandle;

use lossrec_sim::Scenario;

use crate::device::Tun;
use crate::linux::{self, Settings};
use crate::netns::{ifname, Netns};

pub const LINUX_CLIENT: Ipv4Addr = Ipv4Addr::new(10, 9, 0, 1);
pub const LINUX_SERVER: Ipv4Addr = Ipv4Addr::new(10, 9, 0, 2);
pub const ENGINE_CLIENT: Ipv4Addr = Ipv4Addr::new(10, 9, 0, 3);
pub const ENGINE_SERVER: Ipv4Addr = Ipv4Addr::new(10, 9, 0, 4);
pub const PORT: u16 = 5001;

/// Everything created for one run; dropping it stops the server and deletes both
/// namespaces (and with them the devices).
pub struct Topology {
    pub tun_s: Tun,
    pub tun_r: Tun,
    pub sender_settings: Settings,
    pub receiver_settings: Settings,
    server: Option<JoinHandle<()>>,
    stop: Arc<AtomicBool>,
    // Dropped last: after the devices' fds are closed.
    pub ns_s: Netns,
    pub ns_r: Netns,
}

impl Topology {
    /// Creates both namespaces and devices, applies the scenario's settings, and starts the
    /// Linux server when `linux_server`.
    pub fn new(sc: &Scenario, linux_server: bool, stop: Arc<AtomicBool>) -> io::Result<Topology> {
        let cfg = sc.sender_config();
        let ns_s = Netns::create("s")?;
        let ns_r = Netns::create("r")?;
        // Linux sizes its segments from the MTU: make them the scenario's MSS.
        let mtu = u32::from(cfg.mss) + 40 + if cfg.timestamps { 12 } else { 0 };
        let (dev_s, dev_r) = (ifname("s")?, ifname("r")?);
        let tun_s = Tun::open_in(&ns_s, &dev_s, &format!("{LINUX_CLIENT}/24"), mtu)?;
        let tun_r = Tun::open_in(&ns_r, &dev_r, &format!("{LINUX_SERVER}/24"), mtu)?;
        let sender_settings = linux::sender_settings(cfg);
        let receiver_settings = linux::receiver_settings(sc.receiver_config());
        let peers_s = [
            &format!("{LINUX_SERVER}/32")[..],
            &format!("{ENGINE_SERVER}/32"),
        ];
        linux::apply(&ns_s, tun_s.name(), &peers_s, &sender_settings)?;
        let peers_r = [
            &format!("{LINUX_CLIENT}/32")[..],
            &format!("{ENGINE_CLIENT}/32"),
        ];
        linux::apply(&ns_r, tun_r.name(), &peers_r, &receiver_settings)?;
        let server = if linux_server {
            let addr = SocketAddrV4::new(LINUX_SERVER, PORT);
            Some(linux::spawn_server(&ns_r, addr, stop.clone())?)
        } else {
            None
        };
        Ok(Topology {
            tun_s,
            tun_r,
            sender_settings,
            receiver_settings,
            server,
            stop,
            ns_s,
            ns_r,
        })
    }
}

impl Drop for Topology {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(h) = self.server.take() {
            let _ = h.join();
        }
    }
}

//! A TUN device (`IFF_TUN | IFF_NO_PI`): each `read` gives one IPv4 packet the kernel
//! routed out of the device, each `write` hands one to the kernel as if it arrived on it.
//! No virtio header, so the kernel computes full checksums and never offloads
//! segmentation: every packet is one real frame's worth.
//!
//! The device is created in the network namespace of the thread that opens
//! `/dev/net/tun` (`tun_chr_open` takes `current`'s namespace), so [`Tun::open_in`] opens
//! it on a short-lived thread that entered the namespace first.

use std::ffi::CString;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::fs::OpenOptionsExt;

use crate::netns::Netns;

/// One TUN device, non-blocking.
#[derive(Debug)]
pub struct Tun {
    file: File,
    name: String,
}

#[repr(C)]
struct IfReq {
    name: [libc::c_char; libc::IFNAMSIZ],
    flags: libc::c_short,
    _pad: [u8; 22],
}

const TUNSETIFF: libc::c_ulong = 0x4004_54ca;

impl Tun {
    /// Creates device `name` inside `ns` with the given MTU, address (`a.b.c.d/len`), up.
    pub fn open_in(ns: &Netns, name: &CString, addr: &str, mtu: u32) -> io::Result<Tun> {
        let ns_name = ns.name().to_string();
        let n = name.clone();
        let file = std::thread::scope(|s| {
            s.spawn(move || -> io::Result<File> {
                crate::netns::enter(&ns_name)?;
                open_device(&n)
            })
            .join()
            .map_err(|_| io::Error::other("TUN setup thread panicked"))?
        })?;
        let name = name.to_string_lossy().into_owned();
        // A long queue towards the emulator: a kernel sender's bursts wait for the emulator
        // thread instead of being dropped at the device (the path model decides losses).
        let mtu = mtu.to_string();
        ns.ip(&[
            "link",
            "set",
            "dev",
            &name,
            "mtu",
            &mtu,
            "txqueuelen",
            "10000",
        ])?;
        ns.ip(&["addr", "add", addr, "dev", &name])?;
        ns.ip(&["link", "set", "dev", &name, "up"])?;
        Ok(Tun { file, name })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn fd(&self) -> RawFd {
        self.file.as_raw_fd()
    }

    /// One packet into `buf`; `Ok(None)` when none is waiting.
    pub fn recv(&mut self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        match self.file.read(buf) {
            Ok(n) => Ok(Some(n)),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Hands one packet to the kernel.
    pub fn send(&mut self, pkt: &[u8]) -> io::Result<()> {
        match self.file.write(pkt) {
            Ok(_) => Ok(()),
            // The device went down (namespace being deleted) or the kernel refused a
            // packet: the path "loses" it, like a real interface would.
            Err(e) if e.raw_os_error() == Some(libc::EIO) => Ok(()),
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => Ok(()),
            Err(e) => Err(e),
        }
    }
}

fn open_device(name: &CString) -> io::Result<File> {
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open("/dev/net/tun")?;
    let mut req = IfReq {
        name: [0; libc::IFNAMSIZ],
        flags: (libc::IFF_TUN | libc::IFF_NO_PI) as libc::c_short,
        _pad: [0; 22],
    };
    for (d, s) in req.name.iter_mut().zip(name.as_bytes()) {
        *d = *s as libc::c_char;
    }
    // SAFETY: TUNSETIFF reads and writes one `struct ifreq`, which IfReq lays out (name,
    // flags, padding to 40 bytes).
    let r = unsafe { libc::ioctl(file.as_raw_fd(), TUNSETIFF as _, &mut req) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(file)
}

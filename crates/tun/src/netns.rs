//! Network namespaces owned by one lossrec process, named after its pid.
//!
//! `lossrec-<pid>-s` holds the Linux sender (client), `lossrec-<pid>-r` the Linux receiver
//! (server); each has one TUN device (`lr<pid>s`, `lr<pid>r`) whose other end is the
//! emulator. They are created with `ip netns add` (a bind mount under `/run/netns`, so they
//! outlive a crashed process) and deleted by [`Netns`]'s `Drop` (normal exit, error, panic,
//! and Ctrl-C through the cancel flag the caller sets). After a SIGKILL,
//! [`cleanup_dead`] removes every `lossrec-<pid>-*` namespace whose pid is gone; every run
//! calls it first. Deleting a namespace destroys its TUN device (tun has no netns refund).
//!
//! A thread enters a namespace with `setns(2)`, which changes only the calling thread;
//! sockets and TUN devices it creates stay in that namespace whichever thread uses them.

use std::ffi::CString;
use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::path::Path;
use std::process::Command;

/// Prefix of every namespace lossrec creates.
pub const PREFIX: &str = "lossrec-";

/// Runs `ip ARGS`, turning a failure into an error that names the command and its stderr.
pub fn ip(args: &[&str]) -> io::Result<()> {
    let out = Command::new("ip")
        .args(args)
        .output()
        .map_err(|e| io::Error::new(e.kind(), format!("cannot run `ip` (iproute2 needed): {e}")))?;
    if out.status.success() {
        return Ok(());
    }
    Err(io::Error::other(format!(
        "`ip {}` failed: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr).trim()
    )))
}

/// A network namespace deleted when dropped.
#[derive(Debug)]
pub struct Netns {
    name: String,
}

impl Netns {
    /// Creates `lossrec-<pid>-<tag>`; loopback is brought up.
    pub fn create(tag: &str) -> io::Result<Netns> {
        let name = format!("{PREFIX}{}-{tag}", std::process::id());
        // A leftover of ours (same pid: a previous run in this process that failed to
        // delete) is replaced.
        if Path::new("/run/netns").join(&name).exists() {
            let _ = ip(&["netns", "delete", &name]);
        }
        ip(&["netns", "add", &name])?;
        let ns = Netns { name };
        ip(&["-n", &ns.name, "link", "set", "lo", "up"])?;
        Ok(ns)
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Moves the calling thread into this namespace (only this thread).
    pub fn enter(&self) -> io::Result<()> {
        enter(&self.name)
    }

    /// Runs `ip -n NS ARGS`.
    pub fn ip(&self, args: &[&str]) -> io::Result<()> {
        let mut all = vec!["-n", self.name.as_str()];
        all.extend_from_slice(args);
        ip(&all)
    }
}

impl Drop for Netns {
    fn drop(&mut self) {
        let _ = ip(&["netns", "delete", &self.name]);
    }
}

/// Moves the calling thread into namespace `name` (`/run/netns/NAME`).
pub fn enter(name: &str) -> io::Result<()> {
    let f = File::open(Path::new("/run/netns").join(name))?;
    // SAFETY: setns on a valid namespace fd; affects the calling thread only.
    let r = unsafe { libc::setns(f.as_raw_fd(), libc::CLONE_NEWNET) };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Namespaces named `lossrec-<pid>-*`, with their pid.
pub fn ours() -> Vec<(String, u32)> {
    let Ok(dir) = std::fs::read_dir("/run/netns") else {
        return Vec::new();
    };
    let mut out: Vec<(String, u32)> = dir
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let pid = name.strip_prefix(PREFIX)?.split('-').next()?.parse().ok()?;
            Some((name, pid))
        })
        .collect();
    out.sort();
    out
}

fn alive(pid: u32) -> bool {
    Path::new("/proc").join(pid.to_string()).exists()
}

/// Deletes every `lossrec-<pid>-*` namespace whose pid is not running; returns their names.
pub fn cleanup_dead() -> io::Result<Vec<String>> {
    let mut removed = Vec::new();
    for (name, pid) in ours() {
        if !alive(pid) {
            ip(&["netns", "delete", &name])?;
            removed.push(name);
        }
    }
    Ok(removed)
}

/// Why the wire cannot run here, or `None` when it can (root, `/dev/net/tun`, `ip netns`).
pub fn unavailable() -> Option<String> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Some("the wire needs root (network namespaces and TUN devices)".into());
    }
    if !Path::new("/dev/net/tun").exists() {
        return Some("the wire needs /dev/net/tun".into());
    }
    if Command::new("ip").arg("-V").output().is_err() {
        return Some("the wire needs iproute2's `ip`".into());
    }
    None
}

/// Writes a sysctl of the calling thread's namespace (`net.ipv4.tcp_sack` →
/// `/proc/sys/net/ipv4/tcp_sack`); net sysctls resolve against the thread's namespace.
pub fn write_sysctl(key: &str, value: &str) -> io::Result<()> {
    let path = format!("/proc/sys/{}", key.replace('.', "/"));
    std::fs::write(&path, value).map_err(|e| io::Error::new(e.kind(), format!("{key}: {e}")))
}

/// Reads a sysctl of the calling thread's namespace.
pub fn read_sysctl(key: &str) -> io::Result<String> {
    let path = format!("/proc/sys/{}", key.replace('.', "/"));
    Ok(std::fs::read_to_string(path)?.trim().to_string())
}

/// Interface name limit (IFNAMSIZ - 1): `lr<pid><tag>` fits for pids below 10^12.
pub fn ifname(tag: &str) -> io::Result<CString> {
    let s = format!("lr{}{tag}", std::process::id());
    if s.len() > 15 {
        return Err(io::Error::other(format!("interface name {s} too long")));
    }
    CString::new(s).map_err(io::Error::other)
}

//! The Linux side of the example: a network namespace holding a TUN device and a TCP
//! server, all created by this process and removed when [`Lab`] is dropped (normal exit,
//! error, panic unwinding, and Ctrl-C/SIGTERM, which only set [`CANCEL`] so that the
//! main loop returns and the drop runs).
//!
//! Deleting the namespace destroys the TUN device inside it (a device with
//! `rtnl_link_ops` is unregistered with its namespace, `default_device_exit_batch`), and
//! with it the server's socket. Nothing is created outside the namespace. A run killed
//! with SIGKILL leaves its namespace; the next run deletes it.

use std::ffi::CString;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::net::{Ipv4Addr, SocketAddrV4, TcpListener};
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::thread;

/// Set by SIGINT or SIGTERM: the main loop stops and the namespace is deleted.
pub static CANCEL: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    // Only an atomic store: async-signal-safe.
    CANCEL.store(true, Ordering::SeqCst);
}

/// Routes SIGINT and SIGTERM to [`CANCEL`].
pub fn catch_signals() {
    let handler = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
    // SAFETY: the handler only stores to an atomic.
    unsafe {
        libc::signal(libc::SIGINT, handler);
        libc::signal(libc::SIGTERM, handler);
    }
}

/// The server's address inside the namespace (its TUN device's address).
pub const SERVER: Ipv4Addr = Ipv4Addr::new(10, 77, 0, 1);
/// Our address: the kernel routes it out of the TUN device, to us.
pub const CLIENT: Ipv4Addr = Ipv4Addr::new(10, 77, 0, 2);
/// The server's port.
pub const PORT: u16 = 5001;

/// What the server read: every byte of the connection, until our FIN.
pub type Received = io::Result<Vec<u8>>;

/// The namespace, its TUN device and the server thread.
pub struct Lab {
    ns: String,
    /// The TUN device: each read is one IPv4 packet the kernel sent, each write one it
    /// receives.
    pub tun: File,
    /// The server's result, once it has read to the end.
    pub server: mpsc::Receiver<Received>,
}

/// Runs `ip ARGS`; a failure names the command and its stderr.
fn ip(args: &[&str]) -> io::Result<()> {
    let out = Command::new("ip")
        .args(args)
        .output()
        .map_err(|e| io::Error::new(e.kind(), format!("cannot run `ip` (iproute2): {e}")))?;
    if out.status.success() {
        return Ok(());
    }
    Err(io::Error::other(format!(
        "`ip {}` failed: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr).trim()
    )))
}

/// Moves the calling thread (only it) into namespace `name`.
fn enter(name: &str) -> io::Result<()> {
    let f = File::open(Path::new("/run/netns").join(name))?;
    // SAFETY: setns(2) on a namespace fd we hold; it affects the calling thread only.
    if unsafe { libc::setns(f.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// The namespace name this process uses.
pub fn ns_name() -> String {
    format!("lrembed-{}", std::process::id())
}

impl Lab {
    /// Creates the namespace, the TUN device `mtu` bytes wide inside it, and a server
    /// listening on [`SERVER`]:[`PORT`]. On any error what was made is removed.
    pub fn create(mtu: u32) -> io::Result<Lab> {
        remove_dead();
        let ns = ns_name();
        ip(&["netns", "add", &ns])?;
        // From here on, `Drop` deletes the namespace whatever fails next.
        let mut lab = Lab {
            ns,
            tun: File::open("/dev/null")?,
            server: mpsc::channel().1,
        };
        let dev = format!("lre{}", std::process::id() % 1_000_000);
        let (ns, d) = (lab.ns.clone(), dev.clone());
        // A TUN device is created in the namespace of the thread that opens it
        // (`tun_chr_open` takes `current`'s namespace): open it on a thread inside.
        lab.tun = thread::spawn(move || enter(&ns).and_then(|()| open_tun(&d)))
            .join()
            .map_err(|_| io::Error::other("TUN thread panicked"))??;
        let n = lab.ns.as_str();
        let mtu = mtu.to_string();
        ip(&["-n", n, "link", "set", "lo", "up"])?;
        ip(&["-n", n, "link", "set", "dev", &dev, "mtu", &mtu, "up"])?;
        ip(&["-n", n, "addr", "add", &format!("{SERVER}/24"), "dev", &dev])?;
        lab.server = serve(&lab.ns)?;
        Ok(lab)
    }
}

/// Deletes the namespaces of earlier runs that were killed (SIGKILL skips `Drop`): a
/// namespace made with `ip netns add` is a bind mount that outlives its process.
fn remove_dead() {
    let Ok(dir) = std::fs::read_dir("/run/netns") else {
        return;
    };
    for name in dir.filter_map(|e| e.ok()?.file_name().into_string().ok()) {
        let pid = name
            .strip_prefix("lrembed-")
            .and_then(|p| p.parse::<u32>().ok());
        if pid.is_some_and(|p| !Path::new("/proc").join(p.to_string()).exists()) {
            let _ = ip(&["netns", "delete", &name]);
        }
    }
}

impl Drop for Lab {
    fn drop(&mut self) {
        if let Err(e) = ip(&["netns", "delete", &self.ns]) {
            eprintln!("cleanup: {e}");
        }
    }
}

/// Opens `/dev/net/tun` as device `name` (`IFF_TUN | IFF_NO_PI`: bare IPv4 packets; no
/// virtio header, so the kernel neither offloads checksums nor sends super-segments).
fn open_tun(name: &str) -> io::Result<File> {
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_CLOEXEC)
        .open("/dev/net/tun")?;
    let cname = CString::new(name).map_err(io::Error::other)?;
    // SAFETY: an all-zero ifreq is valid; we set the name and flags.
    let mut req: libc::ifreq = unsafe { std::mem::zeroed() };
    for (d, s) in req.ifr_name.iter_mut().zip(cname.as_bytes()) {
        *d = *s as libc::c_char;
    }
    req.ifr_ifru.ifru_flags = (libc::IFF_TUN | libc::IFF_NO_PI) as libc::c_short;
    // SAFETY: TUNSETIFF reads and writes one `struct ifreq`.
    if unsafe { libc::ioctl(file.as_raw_fd(), libc::TUNSETIFF, &mut req) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(file)
}

/// Binds the server inside `ns` (on a thread that entered it) and lets it read one
/// connection to its end; the bytes arrive on the returned channel.
fn serve(ns: &str) -> io::Result<mpsc::Receiver<Received>> {
    let (ready_tx, ready) = mpsc::channel();
    let (tx, rx) = mpsc::channel();
    let ns = ns.to_string();
    thread::spawn(move || {
        let bound = enter(&ns).and_then(|()| TcpListener::bind(SocketAddrV4::new(SERVER, PORT)));
        let listener = match bound {
            Ok(l) => {
                let _ = ready_tx.send(Ok(()));
                l
            }
            Err(e) => {
                let _ = ready_tx.send(Err(e));
                return;
            }
        };
        let got = listener.accept().and_then(|(mut s, _)| {
            let mut buf = Vec::new();
            s.read_to_end(&mut buf)?;
            // Closing sends our FIN; the client acknowledges it.
            s.flush()?;
            Ok(buf)
        });
        let _ = tx.send(got);
    });
    ready
        .recv()
        .map_err(|_| io::Error::other("server thread died"))??;
    Ok(rx)
}

/// Reads the TUN device on a thread of its own, one packet per message, until the
/// device goes away (the namespace is deleted) or the receiver is dropped.
pub fn reader(tun: &File) -> io::Result<mpsc::Receiver<Vec<u8>>> {
    let mut f = tun.try_clone()?;
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let mut buf = vec![0u8; 65_536];
        while let Ok(n) = f.read(&mut buf) {
            if tx.send(buf[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    Ok(rx)
}

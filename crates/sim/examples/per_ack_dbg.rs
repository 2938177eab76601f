use lossrec_sim::bench::per_ack_workload;
fn main() {
    let n: usize = std::env::args().nth(1).unwrap().parse().unwrap();
    let w = per_ack_workload(n, 1);
    let mut s = w.sender();
    println!("after setup: len {} cwnd {} nxt {}", s.scoreboard().len(), s.cwnd() / 1448, s.snd_nxt() / 1448);
    s.write(w.acks[0].0, w.bytes);
    for (i, (at, ack)) in w.acks.iter().enumerate() {
        while let Some(t) = s.poll_timeout() { if t > *at { break; } s.on_timeout(t); while s.poll_transmit(t).is_some() {} }
        s.on_ack(*at, ack);
        while s.poll_transmit(*at).is_some() {}
        if i % (w.acks.len() / 20) == 0 {
            println!("{i} t={at} len {} cwnd {} ssthresh {} state {:?} una {} nxt {} win {} pipe {}", s.scoreboard().len(), s.cwnd() / 1448, s.ssthresh()/1448, s.state(), s.snd_una()/1448, s.snd_nxt()/1448, ack.window/1448, s.pipe()/1448);
        }
    }
}

#![no_main]
// The body is lossrec_fuzz::receiver_segments::run, shared with the stable corpus regression test.
libfuzzer_sys::fuzz_target!(|data: &[u8]| lossrec_fuzz::receiver_segments::run(data));

#![no_main]
// The body is lossrec_fuzz::sender_ops::run, shared with the stable corpus regression test.
libfuzzer_sys::fuzz_target!(|data: &[u8]| lossrec_fuzz::sender_ops::run(data));

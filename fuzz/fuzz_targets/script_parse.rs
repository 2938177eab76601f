#![no_main]
// The body is lossrec_fuzz::script::run, shared with the stable corpus regression test.
libfuzzer_sys::fuzz_target!(|data: &[u8]| lossrec_fuzz::script::run(data));
